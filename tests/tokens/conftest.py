"""Token tests: the real app and a real worker (fresh task queue per module) on real
PostgreSQL, Redis, Temporal and the local chain."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from solders.keypair import Keypair
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps, worker_deps
from api.app import create_app
from chain.outside import OutsideWallet
from core.config import Settings
from tests.factories import World, clear_rate_windows
from tokens.deposits import DepositScanner
from worker import build_worker

UNIT = 10**9


@pytest.fixture(scope="module")
def token_settings(
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
    return f"tokens-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
async def deps(token_settings: Settings) -> AsyncIterator[WorkerDeps]:
    async with worker_deps(token_settings) as d:
        yield d


@pytest.fixture(scope="module")
async def worker(
    temporal_env: WorkflowEnvironment, deps: WorkerDeps, queue: str
) -> AsyncIterator[None]:
    async with build_worker(temporal_env.client, deps, task_queue=queue):
        yield


@pytest.fixture(scope="module")
async def app(token_settings: Settings) -> AsyncIterator[FastAPI]:
    application = create_app(token_settings)
    async with application.router.lifespan_context(application):
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


@pytest.fixture
def scanner(deps: WorkerDeps) -> DepositScanner:
    return DepositScanner(deps.sessions, deps.gateway, deps.solana)


@pytest.fixture(scope="module")
async def outsider(deps: WorkerDeps) -> OutsideWallet:
    """An outside wallet holding MCC and MCD of its own (minted to it, not to custody)."""
    wallet = OutsideWallet(Keypair(), deps.solana)
    await wallet.ensure_sol(deps.gateway)
    for currency in ("MCC", "MCD"):
        await wallet.receive_minted(
            deps.gateway, currency, 1_000_000 * UNIT, f"test-outside:{wallet.address}:{currency}"
        )
    return wallet


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
