"""Fixtures shared by the webhook and mining suites: the real app wired to the test Temporal
server and chain node, a worker on a fresh task queue, and a real HTTP receiver on loopback.
``client`` and ``world`` come from tests/conftest.py."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from core.embedded import free_port
from core.workflow_ids import pump_workflow_id
from tests.factories import ProjectCreds
from tests.stack import new_queue, running_app, running_worker

# Settings of the app and the worker here: receivers on loopback, quick retries.
FAST_WEBHOOKS: dict[str, Any] = {
    "webhook_allow_loopback": True,
    "webhook_retry_schedule": (0, 0.2, 0.2, 0.2, 0.2),
    "webhook_timeout_seconds": 1.0,
    "webhook_poll_seconds": 0.05,
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


@pytest.fixture
def fast_webhooks(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The worker's webhook settings: FAST_WEBHOOKS, with a test's own changes given as
    ``@pytest.mark.webhooks(webhook_retry_schedule=(0, 0.1), ...)``."""
    marker = request.node.get_closest_marker("webhooks")
    return {**FAST_WEBHOOKS, **(marker.kwargs if marker else {})}


@pytest.fixture(scope="session")
async def app(
    worker_settings: Settings, temporal_env: WorkflowEnvironment
) -> AsyncIterator[FastAPI]:
    settings = worker_settings.model_copy(update=FAST_WEBHOOKS)
    async with running_app(settings, temporal=temporal_env.client) as application:
        yield application


@pytest.fixture
async def worker(
    app: FastAPI,
    temporal_env: WorkflowEnvironment,
    worker_settings: Settings,
    fast_webhooks: dict[str, Any],
) -> AsyncIterator[str]:
    """A worker on a fresh task queue that the app starts its workflows on (its settings are
    read once, at its start, like a real worker's)."""
    queue = new_queue("test")
    app.state.task_queue = queue
    settings = worker_settings.model_copy(update=fast_webhooks)
    async with running_worker(temporal_env.client, settings, queue):
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


@pytest.fixture
def api_webhooks(app: FastAPI) -> Iterator[Callable[..., None]]:
    """Change the running app's settings for one test: ``api_webhooks(webhook_x=...)``
    (restored afterwards)."""
    before = app.state.settings

    def change(**changes: Any) -> None:
        app.state.settings = before.model_copy(update=changes)

    yield change
    app.state.settings = before
