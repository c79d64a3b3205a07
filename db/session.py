"""SQLAlchemy engine (``db_engine``; "engine" is the transaction engine) and session maker
factories.

Created once per process (API lifespan, worker start-up). Callers own the commit: a request or
an activity commits once; repositories and services only flush.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from core.config import Settings


def create_db_engine(settings: Settings) -> AsyncEngine:
    # No pre-ping: it costs a round trip on every checkout, i.e. on every request and activity.
    # A connection that died (database restart) fails its one use instead; SQLAlchemy then
    # renews the whole pool, the API answers 503 (api.errors) and activities retry.
    return create_async_engine(
        settings.database_url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_pool_overflow,
    )


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
