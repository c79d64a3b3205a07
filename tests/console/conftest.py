"""Console tests in process: the real app (lifespan included) on the session's PostgreSQL,
Redis, Temporal and chain node, with a worker on a task queue of its own. ``world`` comes from
tests/conftest.py (through ``app``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from tests.stack import asgi_client, new_queue, running_app, running_worker


@pytest.fixture(scope="session")
def console_queue() -> str:
    return new_queue("console")


@pytest.fixture(scope="session")
async def console_app(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, console_queue: str
) -> AsyncIterator[FastAPI]:
    async with running_app(
        worker_settings, fresh_projects=False, temporal=temporal_env.client,
        task_queue=console_queue,
    ) as application:  # fmt: skip
        yield application


@pytest.fixture
def app(console_app: FastAPI) -> FastAPI:
    return console_app


# Package, not session: a worker left running serves its queue for the rest of the session,
# and a webhook pump started there would go on claiming the deliveries of later tests on
# the shared database under this worker's settings (loopback receivers refused).
@pytest.fixture(scope="package")
async def console_worker(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, console_queue: str
) -> AsyncIterator[None]:
    async with running_worker(temporal_env.client, worker_settings, console_queue):
        yield


@pytest.fixture
async def web(console_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A browser-like client: keeps cookies, follows no redirect by itself."""
    async with asgi_client(console_app) as c:
        yield c
