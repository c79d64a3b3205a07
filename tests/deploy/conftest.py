"""What the topology's test modules share: the demo project in the topology's database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import psycopg
import pytest

from core.config import Settings
from deploy.topology import Topology


@pytest.fixture(scope="session")
def demo(topology: Topology) -> dict[str, Any]:
    """The demo project, users and consent (mccgw.seed) in the topology's database."""
    from mccgw.seed import seed

    env = topology.env
    settings = Settings(
        _env_file=None,
        environment="production",
        database_url=env["DATABASE_URL"],
        redis_url=env["REDIS_URL"],
        secret_key=env["SECRET_KEY"],
        master_key=env["MASTER_KEY"],
        chain_keys_dir=Path(env["CHAIN_KEYS_DIR"]),
        solana_rpc_url=env["SOLANA_RPC_URL"],
        temporal_address=env["TEMPORAL_ADDRESS"],
        base_url=env["BASE_URL"],
        mcc_mint=env["MCC_MINT"],
        mcd_mint=env["MCD_MINT"],
    )
    # A new demo project is an application until mccgw dev's approval runs (mccgw.demo): seed
    # twice (the second gives it an API secret) and activate it here, as the approval would.
    demo = asyncio.run(seed(settings, asyncio.run(seed(settings, {}))))
    project_id = int(demo["projects"][0]["project_id"])
    dsn = env["DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE projects SET status = 'active' WHERE project_id = %s", (project_id,))
    return demo
