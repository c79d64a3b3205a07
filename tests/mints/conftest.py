"""A world of its own whose mints differ from the suite's: MCD at 6 decimals (as the
ecosystem's MCD Token program makes it) beside MCC at 9, once owned by SPL Token and once by
Token-2022. Each run gets its own chain node and database; Redis and Temporal are the
session's. Everything is real: the app, a worker, the chain, the webhook receiver."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps, worker_deps
from core.config import Settings
from core.embedded import free_port
from core.migrate import upgrade_to_head
from devchain.node.process import start_node
from tests.stack import new_queue, running_app
from tests.webhooks.support import FAST_WEBHOOKS
from worker import build_worker


@dataclass(frozen=True)
class Mints:
    name: str
    mcd_decimals: int
    mcd_token_2022: bool


MINTS = [Mints("mcd6-spl", 6, False), Mints("mcd6-token2022", 6, True)]


@dataclass
class MintWorld:
    mints: Mints
    settings: Settings
    deps: WorkerDeps
    app: FastAPI


def _plain(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@pytest.fixture(scope="module", params=MINTS, ids=[m.name for m in MINTS])
def mints(request: pytest.FixtureRequest) -> Mints:
    return request.param


@pytest.fixture(scope="module")
def mint_database(database_url: str) -> Iterator[str]:
    """A fresh migrated database on the session's server (the cursor and mint rows of this
    chain do not meet the suite's)."""
    name = f"mccgw_mints_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_plain(database_url), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = database_url.partition("?")
    url = base.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")
    try:
        upgrade_to_head(url)
        yield url
    finally:
        with psycopg.connect(_plain(database_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def mint_settings(
    mints: Mints, mint_database: str, stack_settings: Settings, session_tmp: Path
) -> Iterator[Settings]:
    root = session_tmp / f"mints-{mints.name}-{uuid.uuid4().hex[:6]}"
    node = start_node(
        data_dir=root / "chain", keys_dir=root / "keys", port=free_port(), slot_ms=20,
        fixtures=False, mcd_decimals=mints.mcd_decimals, mcd_token_2022=mints.mcd_token_2022,
    )  # fmt: skip
    try:
        yield stack_settings.model_copy(
            update={
                "database_url": mint_database,
                "solana_rpc_url": node.url,
                "chain_keys_dir": root / "keys",
                **FAST_WEBHOOKS,
            }
        )
    finally:
        node.stop()


@pytest.fixture(scope="module")
async def mint_world(
    mints: Mints, mint_settings: Settings, temporal_env: WorkflowEnvironment
) -> AsyncIterator[MintWorld]:
    queue = new_queue(f"mints-{mints.name}")
    async with (
        worker_deps(mint_settings) as deps,
        build_worker(temporal_env.client, deps, task_queue=queue),
        running_app(mint_settings, task_queue=queue) as app,
    ):
        await deps.gateway.load_token_decimals()
        yield MintWorld(mints, mint_settings, deps, app)
