"""Token tests: the real app and a real worker (fresh task queue per module) on real
PostgreSQL, Redis, Temporal and the local chain. ``client`` and ``world`` come from
tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps, worker_deps
from core.config import Settings
from devchain.outside import OutsideWallet
from tests.stack import new_queue, running_app
from tokens.deposit_watch import DepositScanner
from worker import build_worker

UNIT = 10**9


@pytest.fixture(scope="module")
def token_settings(stack_settings: Settings) -> Settings:
    return stack_settings


@pytest.fixture(scope="module")
def queue() -> str:
    return new_queue("tokens")


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
    async with running_app(token_settings, fresh_projects=False) as application:
        yield application


@pytest.fixture
async def scanner(deps: WorkerDeps) -> AsyncIterator[DepositScanner]:
    watcher = DepositScanner(deps.sessions, deps.gateway)
    yield watcher
    await watcher.aclose()


@pytest.fixture(scope="module")
async def solana(token_settings: Settings) -> AsyncIterator[AsyncClient]:
    """A solana-py client of the node, for what the tests do as outsiders (wallets); the
    product itself speaks to the chain through chain/rpc.py only."""
    async with AsyncClient(token_settings.solana_rpc_url, timeout=10) as client:
        yield client


@pytest.fixture(scope="module")
async def outsider(deps: WorkerDeps, solana: AsyncClient) -> OutsideWallet:
    """An outside wallet holding MCC and MCD of its own (minted to it, not to custody)."""
    wallet = OutsideWallet(Keypair(), solana)
    await wallet.ensure_sol(deps.gateway)
    for currency in ("MCC", "MCD"):
        await wallet.receive_minted(
            deps.gateway, currency, 1_000_000 * UNIT, f"test-outside:{wallet.address}:{currency}"
        )
    return wallet


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
