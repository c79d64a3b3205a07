"""Console tests in process: the real app (lifespan included) on the session's PostgreSQL,
Redis, Temporal and chain node, with a worker on a task queue of its own. ``world`` comes from
tests/conftest.py (through ``app``). The browser tests' ``stack`` (the shared ``mccgw dev``
stack) and ``browser`` (headless Chromium) are here too, for every browser test module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import psutil
import pytest
from fastapi import FastAPI

from tests.console.browser_support import Stack as DevStackView
from tests.console.browser_support import chromium, require_browser
from tests.shared_stacks import DevStack
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


@pytest.fixture(scope="module")
def stack(shared_dev_stack: DevStack) -> Iterator[DevStackView]:
    require_browser()
    running = shared_dev_stack
    yield DevStackView(running.stack, running.state_dir, running.ports)
    for p in psutil.Process(running.stack.proc.pid).children(recursive=True):
        try:
            if p.status() == psutil.STATUS_STOPPED:
                p.resume()  # never leave a paused process behind
        except psutil.NoSuchProcess:
            pass


@pytest.fixture(scope="module")
def browser(stack: DevStackView) -> Iterator[Any]:
    yield from chromium()
