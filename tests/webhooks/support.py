"""Fixtures shared by the webhook and mining suites: the real app wired to the test Temporal
server and chain node, a worker on a fresh task queue, and a real HTTP receiver on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from aiohttp import web
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from activities.deps import worker_deps
from api.app import create_app
from core.config import Settings
from core.embedded import free_port
from tests.factories import ProjectCreds, World, clear_rate_windows
from worker import build_worker
from workflows.pump import pump_workflow_id

BASE = "http://127.0.0.1:8000"

FAST_WEBHOOKS = {
    "WEBHOOK_ALLOW_LOOPBACK": "true",
    "WEBHOOK_RETRY_SCHEDULE": "0,0.2,0.2,0.2,0.2",
    "WEBHOOK_TIMEOUT_SECONDS": "1",
    "WEBHOOK_POLL_SECONDS": "0.05",
}


def verify_signature(secret: str, body: bytes, header: str) -> bool:
    """The receiver's side, written independently of webhooks.delivery."""
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """Answers from ``script`` in order (an int status, or ("sleep", seconds)), then 200."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    script: list[Any] = field(default_factory=list)
    runner: web.AppRunner | None = None
    port: int = 0

    async def handle(self, request: web.Request) -> web.Response:
        self.received.append(Received(dict(request.headers), await request.read()))
        step = self.script.pop(0) if self.script else 200
        if isinstance(step, tuple):
            await asyncio.sleep(step[1])
            return web.Response(status=200)
        return web.Response(status=step, text="ok")

    async def start(self, port: int = 0) -> None:
        app = web.Application()
        app.router.add_post("/hook", self.handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        self.port = port or self.port or free_port()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()
        self.url = f"http://127.0.0.1:{self.port}/hook"

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    async def wait_for(self, n: int, seconds: float = 15.0) -> list[Received]:
        await eventually(lambda: _at_least(self.received, n), seconds)
        return self.received


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    r = Receiver()
    await r.start()
    yield r
    await r.stop()


@pytest.fixture(autouse=True)
def fast_webhooks(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAST_WEBHOOKS.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="session")
async def app(
    worker_settings: Settings, temporal_env: WorkflowEnvironment
) -> AsyncIterator[FastAPI]:
    application = create_app(worker_settings)
    async with application.router.lifespan_context(application):
        application.state.project_authenticator.cache_seconds = 0.0
        application.state.temporal = temporal_env.client
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=BASE, timeout=30
    ) as c:
        yield c


@pytest.fixture(autouse=True)
async def _fresh_rate_windows(redis: Redis) -> None:
    await clear_rate_windows(redis)


@pytest.fixture
def world(
    session_maker: async_sessionmaker[AsyncSession], settings: Settings, app: FastAPI
) -> World:
    return World(session_maker, settings, app)


@pytest.fixture
async def worker(
    app: FastAPI,
    temporal_env: WorkflowEnvironment,
    worker_settings: Settings,
    fast_webhooks: None,
) -> AsyncIterator[str]:
    """A worker on a fresh task queue that the app starts its workflows on."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    app.state.task_queue = queue
    async with (
        worker_deps(worker_settings) as deps,
        build_worker(temporal_env.client, deps, task_queue=queue),
    ):
        yield queue
        with contextlib.suppress(Exception):
            await temporal_env.client.get_workflow_handle(pump_workflow_id(queue)).terminate()


def project_headers(creds: ProjectCreds, key: str | None = None) -> dict[str, str]:
    headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


async def eventually(
    probe: Callable[[], Awaitable[Any]], seconds: float = 20.0, interval: float = 0.05
) -> Any:
    """Call ``probe`` until it returns something truthy."""
    async with asyncio.timeout(seconds):
        while True:
            value = await probe()
            if value:
                return value
            await asyncio.sleep(interval)


async def _at_least(items: list[Any], n: int) -> bool:
    return len(items) >= n
