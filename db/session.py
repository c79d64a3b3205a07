"""SQLAlchemy engine (``db_engine``; "engine" is the transaction engine) and session maker
factories.

Created once per process (API lifespan, worker start-up). Callers own the commit: a request or
an activity commits once; repositories and services only flush.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from core.config import Settings
from db.notify import NotifyListener

log = logging.getLogger("mccgw.db.session")


def create_db_engine(settings: Settings) -> AsyncEngine:
    # No pre-ping: it costs a round trip on every checkout, i.e. on every request and activity.
    # After a database restart the process's listener renews the pool before its next use
    # (``renew_after_loss``). A connection that died unseen by it fails its one use instead;
    # SQLAlchemy then renews the whole pool, the API answers 503 (api.errors) and activities
    # retry.
    return create_async_engine(
        settings.database_url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_pool_overflow,
    )


def renew_after_loss(db_engine: AsyncEngine, listener: NotifyListener) -> None:
    """Renew ``db_engine``'s pooled connections at their next checkout once ``listener`` has
    lost its connection.

    The pool does not ping a connection before use (a round trip per request saved), so after
    a database restart every pooled connection was dead and known to be only when used: the
    first request of each process answered 503 (a retry succeeded), however long after the
    restart it came. The listener is always reading, so it sees the restart at once: the next
    checkout then invalidates every connection opened before it, as SQLAlchemy does itself
    when a use fails, and opens a new one instead. Losing only the listener's connection costs
    one reconnect per pooled connection."""
    lost = False

    def on_lost() -> None:
        nonlocal lost
        lost = True

    def on_checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        nonlocal lost
        if lost:
            lost = False
            log.info("the database connection was lost: renewing the pool")
            raise exc.InvalidatePoolError("the process's notify listener lost its connection")

    event.listen(db_engine.sync_engine, "checkout", on_checkout)
    listener.when_lost(on_lost)


def create_session_maker(db_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(db_engine, expire_on_commit=False)


@asynccontextmanager
async def unit_of_work(maker: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """One commit point: commit when the block succeeds, roll back when it raises."""
    async with maker() as session:
        try:
            yield session
            await session.commit()
        except BaseException:
            await session.rollback()
            raise
