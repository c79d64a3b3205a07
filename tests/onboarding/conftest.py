"""Onboarding tests: the real app wired to the session's chain node and Temporal, with a
worker polling a task queue of its own (the app starts workflows on it; tests/stack.py).
``client`` and ``world`` come from tests/conftest.py."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from core.config import Settings
from db.models import User
from onboarding.whitelist import WhitelistChain
from tests.factories import World
from tests.stack import Stack

WALLET = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"


# The worker lives for the package, not the session: a worker left running serves its queue,
# and a webhook pump started there would go on claiming the deliveries of later tests on the
# shared database under this worker's settings (loopback receivers refused).
STACK = Stack("onboarding", worker="on demand")
app_settings, queue, deps, worker, app = STACK.fixtures()


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
