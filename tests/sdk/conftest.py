"""SDK tests: the SDK against the real app (lifespan included) on real PostgreSQL, Redis and
Temporal, in-process (ASGI) or served over a real local HTTP socket by uvicorn. ``world`` comes
from tests/conftest.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from core.embedded import free_port
from tests.access.conftest import build_app
from tests.factories import ProjectCreds, World
from tests.stack import BASE, Stack

__all__ = ["BASE"]


# Workflows these tests start (the webhook pump) go to a queue no worker serves; the webhook
# endpoints they register are on this machine (loopback). The app reads the session's chain
# node: its money routes answer 503 until it has read the mints' decimals (without a node of
# its own it would read whatever listens on the default RPC port, or nothing).
STACK = Stack(
    "sdk", on="worker_settings", changes={"webhook_allow_loopback": True}, build=build_app
)
app_settings, queue, deps, worker, app = STACK.fixtures()


@pytest.fixture(scope="package")
async def live_url(app: FastAPI) -> AsyncIterator[str]:
    """The same app over a real socket (uvicorn on the test loop): for the sync client and
    the CLI, which run in a thread meanwhile."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="error")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    async with asyncio.timeout(10):
        while not server.started:  # noqa: ASYNC110 (uvicorn offers no event)
            await asyncio.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await task


@dataclass
class Consented:
    """A project and a user who authorized it."""

    creds: ProjectCreds
    uid: str


@pytest.fixture
async def consented(world: World) -> Consented:
    creds = await world.project()
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    return Consented(creds, user.uid)


class DropAnswers(httpx.AsyncBaseTransport):
    """The real app answers, then the connection 'breaks' before the answer reaches the
    client, for the first ``drop`` requests: the write happened, the client cannot know."""

    def __init__(self, app: FastAPI, drop: int = 1) -> None:
        self.inner = httpx.ASGITransport(app=app)
        self.drop = drop
        self.requests: list[httpx.Request] = []
        self.answers: list[httpx.Response] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = await self.inner.handle_async_request(request)
        await response.aread()
        self.answers.append(response)
        if len(self.requests) <= self.drop:
            raise httpx.ReadError("connection reset before the answer arrived", request=request)
        return response


class DropAnswersSync(httpx.BaseTransport):
    """The same over a real socket, for the sync client."""

    def __init__(self, drop: int = 1) -> None:
        self.inner = httpx.HTTPTransport()
        self.drop = drop
        self.requests: list[httpx.Request] = []
        self.answers: list[httpx.Response] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = self.inner.handle_request(request)
        response.read()
        self.answers.append(response)
        if len(self.requests) <= self.drop:
            raise httpx.RemoteProtocolError("server disconnected", request=request)
        return response

    def close(self) -> None:
        self.inner.close()
