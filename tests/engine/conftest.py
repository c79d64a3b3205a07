"""Engine tests: the real app, a real worker (one per module, fresh task queue), real
PostgreSQL, Redis, Temporal and the local chain. Users get real on-chain funds."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps, worker_deps
from api.app import create_app
from core.config import Settings
from engine.funding import fund_user
from tests.factories import ProjectCreds, World, clear_rate_windows
from worker import build_worker

UNIT = 10**9


@pytest.fixture(scope="module")
def engine_settings(
    settings: Settings, temporal_env: WorkflowEnvironment, chain_node: tuple[str, Path]
) -> Settings:
    rpc_url, keys_dir = chain_node
    return settings.model_copy(
        update={
            "temporal_address": temporal_env.client.service_client.config.target_host,
            "solana_rpc_url": rpc_url,
            "chain_keys_dir": keys_dir,
        }
    )


@pytest.fixture(scope="module")
def queue() -> str:
    return f"engine-{uuid.uuid4().hex[:8]}"


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
    application = create_app(engine_settings)
    async with application.router.lifespan_context(application):
        application.state.project_authenticator.cache_seconds = 0.0
        application.state.engine_task_queue = queue
        yield application


@pytest.fixture
async def client(app: FastAPI, redis: Redis) -> AsyncIterator[httpx.AsyncClient]:
    await clear_rate_windows(redis)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


@pytest.fixture
def world(
    session_maker: async_sessionmaker[AsyncSession], settings: Settings, app: FastAPI
) -> World:
    return World(session_maker, settings, app)


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
