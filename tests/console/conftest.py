"""Console tests in process: the real app (lifespan included) on the session's PostgreSQL,
Redis, Temporal and chain node, with a worker on a task queue of its own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from activities.deps import worker_deps
from api.app import create_app
from core.config import Settings
from tests.factories import World, clear_rate_windows
from worker import build_worker

BASE = "http://127.0.0.1:8000"


@pytest.fixture(scope="session")
def console_queue() -> str:
    return f"console-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
async def console_app(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, console_queue: str
) -> AsyncIterator[FastAPI]:
    application = create_app(worker_settings)
    async with application.router.lifespan_context(application):
        application.state.temporal = temporal_env.client
        application.state.task_queue = console_queue
        yield application


@pytest.fixture(scope="session")
async def console_worker(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, console_queue: str
) -> AsyncIterator[None]:
    async with (
        worker_deps(worker_settings) as deps,
        build_worker(temporal_env.client, deps, task_queue=console_queue),
    ):
        yield


@pytest.fixture
async def web(console_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A browser-like client: keeps cookies, follows no redirect by itself."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=console_app), base_url=BASE, timeout=60
    ) as c:
        yield c


@pytest.fixture(autouse=True)
async def _fresh_rate_windows(redis: Redis) -> None:
    await clear_rate_windows(redis)


@pytest.fixture
def world(
    session_maker: async_sessionmaker[AsyncSession], worker_settings: Settings, console_app: FastAPI
) -> World:
    return World(session_maker, worker_settings, console_app)
