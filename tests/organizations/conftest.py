"""Organization tests: the real app, a worker per test, PostgreSQL, Redis and Temporal
(tests/stack.py). The daily job works on every station at once, so each test starts from empty
organization tables."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from organizations.bonus import MEMBER_KEY, STATION_KEY
from tests.stack import Stack
from tests.webhooks.support import FAST_WEBHOOKS

STACK = Stack("organizations", worker="per test", changes=FAST_WEBHOOKS)
app_settings, queue, deps, worker, app = STACK.fixtures()


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
    # The public global figures are cached a minute per window: another test's read (the
    # two-mint worlds share this Redis) must not answer for this test's data.
    await redis.delete(
        MEMBER_KEY, STATION_KEY, *[k async for k in redis.scan_iter("mining:global-stats:*")]
    )
    yield
