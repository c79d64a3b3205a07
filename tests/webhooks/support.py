"""What the webhook, mining and organization suites share: their stacks' webhook settings
(``FAST_WEBHOOKS``: receivers on loopback, quick retries; the app and a worker per test come
from tests/stack.py), a real HTTP receiver on loopback, and the receiver's side of a
signature. ``client`` and ``world`` come from tests/conftest.py."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from fastapi import FastAPI

from core.embedded import free_port
from tests.factories import ProjectCreds

# Settings of the app and the worker here: receivers on loopback, quick retries (a test
# changes its worker's with ``@pytest.mark.webhooks(...)``).
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
