"""Engine tests: the real app, a real worker (one per module, fresh task queue), real
PostgreSQL, Redis, Temporal and the local chain. Users get real on-chain funds. ``client`` and
``world`` come from tests/conftest.py."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps, worker_deps
from core.config import Settings
from devchain.funding import fund_user
from tests.factories import ProjectCreds, World
from tests.stack import new_queue, running_app
from worker import build_worker

UNIT = 10**9


@pytest.fixture(scope="module")
def engine_settings(stack_settings: Settings) -> Settings:
    return stack_settings


@pytest.fixture(scope="module")
def queue() -> str:
    return new_queue("engine")


@pytest.fixture(scope="module")
async def deps(engine_settings: Settings) -> AsyncIterator[WorkerDeps]:
    async with worker_deps(engine_settings) as d:
        yield d


@pytest.fixture(scope="module")
async def worker(
    temporal_env: WorkflowEnvironment, deps: WorkerDeps, queue: str
) -> AsyncIterator[None]:
    async with build_worker(temporal_env.client, deps, task_queue=queue):
        yield


@pytest.fixture(scope="module")
async def app(engine_settings: Settings, queue: str, worker: None) -> AsyncIterator[FastAPI]:
    async with running_app(engine_settings, task_queue=queue) as application:
        yield application


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
