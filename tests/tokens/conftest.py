"""Token tests: the real app and a real worker (fresh task queue per module) on real
PostgreSQL, Redis, Temporal and the local chain (tests/stack.py). ``client`` and ``world`` come
from tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair

from activities.deps import WorkerDeps
from core.config import Settings
from devchain.outside import OutsideWallet
from tests.stack import Stack
from tokens.deposit_watch import DepositScanner

UNIT = 10**9


# A queue per module; its worker starts only for the tests that ask for it (most tests here
# call the scanner and the services themselves).
STACK = Stack("tokens", scope="module", worker="on demand", fresh_projects=False)
app_settings, queue, deps, worker, app = STACK.fixtures()


@pytest.fixture
async def scanner(deps: WorkerDeps) -> AsyncIterator[DepositScanner]:
    watcher = DepositScanner(deps.sessions, deps.gateway)
    yield watcher
    await watcher.aclose()


@pytest.fixture(scope="module")
async def solana(app_settings: Settings) -> AsyncIterator[AsyncClient]:
    """A solana-py client of the node, for what the tests do as outsiders (wallets); the
    product itself speaks to the chain through chain/rpc.py only."""
    async with AsyncClient(app_settings.solana_rpc_url, timeout=10) as client:
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
