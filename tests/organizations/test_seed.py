"""The demo territory: fast, idempotent, and lit exactly where its table says."""

from __future__ import annotations

import time

import pytest
from redis.asyncio import Redis
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models.organizations import OrgUnit
from mccgw.seed_orgs import seed_organizations
from organizations import bonus
from tests.factories import World

pytestmark = pytest.mark.usefixtures("clean")


async def test_demo_territory(
    session_maker: async_sessionmaker[AsyncSession], world: World, redis: Redis
) -> None:
    alice, bob = await world.user(), await world.user()
    started = time.perf_counter()
    async with session_maker() as s:
        assert await seed_organizations(s, alice.uid, bob.uid)
        await s.commit()
    elapsed = time.perf_counter() - started
    async with session_maker() as s:
        assert not await seed_organizations(s, alice.uid, bob.uid)  # a restart: unchanged
        states = {
            f"{u.unit_type}-{u.number}": (u.lit, str(u.qualifying_days))
            for u in await s.scalars(select(OrgUnit))
        }
        multipliers = await bonus.multipliers(s, redis, [alice.uid, bob.uid])
    assert states == {
        "station-1": (True, "25.00"),
        "station-2": (False, "18.00"),
        "station-3": (False, "0.00"),
        "matrix-1": (True, "21.50"),
        "matrix-2": (False, "0.00"),
        "sector-1": (False, "14.33"),
        "system-1": (False, "14.33"),
    }
    assert {str(v) for v in multipliers.values()} == {"1.3", "1"}
    assert multipliers[alice.uid] > multipliers[bob.uid]
    assert elapsed < 20, elapsed
