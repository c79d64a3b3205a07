"""Onboarding tests: the real app wired to the session's chain node and Temporal, with a
worker polling a task queue of its own (the app starts workflows on it). ``client`` and
``world`` come from tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from db.models import User
from onboarding.whitelist import WhitelistChain
from tests.factories import World
from tests.stack import new_queue, running_app, running_worker

WALLET = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"


@pytest.fixture(scope="session")
def onboarding_queue() -> str:
    return new_queue("onboarding")


@pytest.fixture(scope="session")
async def app(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, onboarding_queue: str
) -> AsyncIterator[FastAPI]:
    async with running_app(
        worker_settings, temporal=temporal_env.client, task_queue=onboarding_queue
    ) as application:
        yield application


# Package, not session: a worker left running serves its queue for the rest of the session,
# and a webhook pump started there would go on claiming the deliveries of later tests on
# the shared database under this worker's settings (loopback receivers refused).
@pytest.fixture(scope="package")
async def worker(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, onboarding_queue: str
) -> AsyncIterator[None]:
    async with running_worker(temporal_env.client, worker_settings, onboarding_queue):
        yield


@pytest.fixture
def chain(app: FastAPI, worker_settings: Settings) -> WhitelistChain:
    return WhitelistChain.of(app.state.gateway, worker_settings)


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
