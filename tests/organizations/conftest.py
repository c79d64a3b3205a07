"""Organization tests: the real app, worker, PostgreSQL, Redis and Temporal. The daily job
works on every station at once, so each test starts from empty organization tables."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from organizations.bonus import MEMBER_KEY, STATION_KEY
from tests.webhooks.support import (  # noqa: F401  (fixtures)
    _fresh_rate_windows,
    app,
    client,
    fast_webhooks,
    worker,
    world,
)


@pytest.fixture
async def clean(
    session_maker: async_sessionmaker[AsyncSession], redis: Redis
) -> AsyncIterator[None]:
    async with session_maker() as s:
        await s.execute(
            text(
                "TRUNCATE org_station_kpis, org_kpi_progress, org_memberships, org_units;"
                "DELETE FROM mining_activities WHERE workflow_id = 'bulk';"
                "UPDATE users SET station_id = NULL, unit_id = NULL WHERE station_id IS NOT NULL"
            )
        )
        await s.commit()
    await redis.delete(MEMBER_KEY, STATION_KEY)
    yield
