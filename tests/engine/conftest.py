"""Engine tests: the real app, a real worker (one per module, fresh task queue), real
PostgreSQL, Redis, Temporal and the local chain (tests/stack.py). Users get real on-chain
funds. ``client`` and ``world`` come from tests/conftest.py."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from activities.deps import WorkerDeps
from devchain.funding import fund_user
from tests.factories import ProjectCreds, World
from tests.stack import Stack

UNIT = 10**9


# A worker per module on a queue of its own, running whenever the app does.
STACK = Stack("engine", scope="module", worker="with the app")
app_settings, queue, deps, worker, app = STACK.fixtures()


@dataclass
class Api:
    """A project's signed-in view of the API (X-API-Key form)."""

    client: httpx.AsyncClient
    project: ProjectCreds

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Project-ID": str(self.project.project_id), "X-API-Key": self.project.secret}

    async def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        body = {"idempotency_key": uuid.uuid4().hex, **body}
        return await self.client.post(path, json=body, headers=self.headers)

    async def get(self, path: str) -> httpx.Response:
        return await self.client.get(path, headers=self.headers)


@pytest.fixture
async def api(client: httpx.AsyncClient, world: World) -> Api:
    return Api(client, await world.project())


async def funded_user(
    world: World, deps: WorkerDeps, project_id: int, amount: int, currency: str = "MCC"
) -> str:
    """A user who authorized the project and owns ``amount`` base units on chain and ledger."""
    user = await world.user()
    await world.consent(user.uid, project_id)
    if amount:
        await fund_user(
            deps.gateway, deps.sessions, uid=user.uid, currency=currency, amount=amount,
            op_key=f"test-fund:{user.uid}:{currency}",
        )  # fmt: skip
    return user.uid
