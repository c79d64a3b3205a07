"""The clients every activity of a worker process shares, built once per process.

It lives here, below the worker, so activities can name it without importing ``worker``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings
from core.redis_client import create_redis
from db.notify import NotifyListener
from db.session import create_db_engine, create_session_maker, renew_after_loss
from tokens.deposit_watch import DepositScanner


@dataclass
class WorkerDeps:
    """Clients shared by every activity of this process."""

    settings: Settings
    db_engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    redis: Redis
    rpc: ChainRpc  # the process's one JSON-RPC transport (chain/rpc.py)
    gateway: ChainGateway
    # The process's one LISTEN connection: the webhook pump and the deposit watcher subscribe.
    notify: NotifyListener
    # The worker's one deposit scanner: the scheduled watcher follows with it, reconciliation
    # scans with it (its block cursor and watched set are kept between runs).
    deposits: DepositScanner


@asynccontextmanager
async def worker_deps(settings: Settings) -> AsyncIterator[WorkerDeps]:
    db_engine = create_db_engine(settings)
    sessions = create_session_maker(db_engine)
    redis = create_redis(settings)
    rpc = ChainRpc.of(settings)
    gateway = ChainGateway(settings, rpc, load_or_create_keys(settings.chain_keys_dir), sessions)
    # Token decimals from the mints, in the background: the worker starts while its chain is
    # down, and an activity needing them fails retryably until they are read. The worker keeps
    # them per mint (mint_decimals) for processes that start while the chain is unreachable.
    warm_up = asyncio.create_task(gateway.warm_up(keep=True))
    notify = NotifyListener(settings.database_url_plain)
    renew_after_loss(db_engine, notify)  # activities after a restart: a fresh pool
    await notify.start()  # in the background: subscribers poll until it is up
    deposits = DepositScanner(sessions, gateway, notify=notify)
    try:
        yield WorkerDeps(settings, db_engine, sessions, redis, rpc, gateway, notify, deposits)
    finally:
        await deposits.aclose()
        await notify.stop()
        warm_up.cancel()
        await rpc.aclose()
        await redis.aclose()
        await db_engine.dispose()
