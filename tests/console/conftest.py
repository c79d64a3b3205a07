"""Console tests in process: the real app (lifespan included) on the session's PostgreSQL,
Redis, Temporal and chain node, with a worker on a task queue of its own. ``world`` comes from
tests/conftest.py (through ``app``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from tests.stack import Stack, asgi_client

# The worker starts for the tests that ask for it, and lives for the package (see
# tests/onboarding/conftest.py for why not longer).
STACK = Stack("console", worker="on demand", fresh_projects=False)
app_settings, queue, deps, worker, app = STACK.fixtures()


@pytest.fixture
async def web(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A browser-like client: keeps cookies, follows no redirect by itself."""
    async with asgi_client(app) as c:
        yield c
