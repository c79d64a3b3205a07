"""Onboarding tests: the real app wired to the session's chain node and Temporal, with a
worker polling a task queue of its own (the app starts workflows on it)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from activities.deps import worker_deps
from api.app import create_app
from core.config import Settings
from db.models import User
from onboarding.whitelist import WhitelistChain
from tests.factories import World, clear_rate_windows
from worker import build_worker

BASE = "http://127.0.0.1:8000"
WALLET = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"


@pytest.fixture(scope="session")
def onboarding_queue() -> str:
    return f"onboarding-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
async def app(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, onboarding_queue: str
) -> AsyncIterator[FastAPI]:
    application = create_app(worker_settings)
    async with application.router.lifespan_context(application):
        application.state.project_authenticator.cache_seconds = 0.0
        application.state.temporal = temporal_env.client
        application.state.task_queue = onboarding_queue
        yield application


@pytest.fixture(scope="session")
async def worker(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, onboarding_queue: str
) -> AsyncIterator[None]:
    async with (
        worker_deps(worker_settings) as deps,
        build_worker(temporal_env.client, deps, task_queue=onboarding_queue),
    ):
        yield


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=BASE, timeout=60
    ) as c:
        yield c


@pytest.fixture(autouse=True)
async def _fresh_rate_windows(redis: Redis) -> None:
    await clear_rate_windows(redis)


@pytest.fixture
def world(
    session_maker: async_sessionmaker[AsyncSession], worker_settings: Settings, app: FastAPI
) -> World:
    return World(session_maker, worker_settings, app)


@pytest.fixture
def chain(app: FastAPI, worker_settings: Settings) -> WhitelistChain:
    return WhitelistChain.of(app.state.gateway, app.state.solana, worker_settings)


class Actors:
    """Tokens for an administrator and a developer."""

    def __init__(self, world: World) -> None:
        self.world = world

    async def admin(self) -> dict[str, str]:
        admin = await self.world.user("admin")
        return bearer(await self.world.token(admin.uid, "openid"))

    async def developer(self) -> tuple[User, dict[str, str]]:
        dev = await self.world.user()
        return dev, bearer(await self.world.token(dev.uid, "openid profile email"))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def application_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "project_name": "Moon Auctions",
        "project_description": "Auctions",
        "company_name": "Moon Ltd",
        "website_url": "https://moon.example",
        "mcd_wallet_address": WALLET,
    }
    body.update(overrides)
    return body


@pytest.fixture
def actors(world: World) -> Actors:
    return Actors(world)
