"""The organization API over the daily job's own state: mining stats and a lit unit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from organizations import bulk, kpi
from tests.factories import World
from tests.organizations import support as org

pytestmark = pytest.mark.usefixtures("clean")


async def test_mining_stats_mine_and_global(
    client: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    today = datetime.now(UTC).date()
    async with session_maker() as s:
        await bulk.add_members(
            s, (await _station(s)), "ms", 1, 2, datetime.now(UTC) - timedelta(days=9)
        )
        await bulk.add_inputs(s, "ms", 1, 2, today, Decimal("12.5"), project_id=1000)
        await bulk.add_inputs(s, "ms", 1, 1, today, Decimal("1"), project_id=1001, tag="b")
        await bulk.add_inputs(s, "ms", 1, 1, today - timedelta(days=3), Decimal("2"))
        await bulk.add_inputs(s, "ms", 1, 1, today - timedelta(days=40), Decimal("99"))
        await s.commit()
    auth = org.bearer(await world.token("ms1", "mining:read"))
    r = await client.get("/v1/mining/stats", headers=auth)
    assert r.status_code == 200, r.text
    a = r.json()["data"]["attributes"]
    assert [(d["date"], d["project_id"], d["trade_volume_usdc"]) for d in a["days"]] == [
        (today.isoformat(), "1000", "12.5"),
        (today.isoformat(), "1001", "1"),
        ((today - timedelta(days=3)).isoformat(), "1000", "2"),
    ]
    assert a["totals"] == {"activities": 3, "mcd_amount": "0", "trade_volume_usdc": "15.5"}
    r = await client.get("/v1/mining/stats", headers=auth, params={"days": 1})
    assert r.json()["data"]["attributes"]["totals"]["activities"] == 2
    assert (
        await client.get("/v1/mining/stats", headers=auth, params={"days": 0})
    ).status_code == 422
    assert (
        await client.get("/v1/mining/stats", headers=auth, params={"days": 91})
    ).status_code == 422
    assert (await client.get("/v1/mining/stats")).status_code == 401
    no_scope = org.bearer(await world.token("ms1", "org:read"))
    assert (await client.get("/v1/mining/stats", headers=no_scope)).status_code == 403
    r = await client.get("/v1/mining/global-stats", params={"days": 7})
    assert r.status_code == 200, r.text
    day = r.json()["data"]["attributes"]["days"][0]
    assert day["date"] == today.isoformat() and day["miners"] >= 2 and day["activities"] >= 3
    assert (await client.get("/v1/mining/global-stats", params={"days": "x"})).status_code == 422


async def _station(s: AsyncSession) -> int:
    return await org.unit(s, "station", 50)


async def test_the_job_state_is_what_the_api_shows(
    client: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    """A lit unit the job lit shows in the unit, the stats and the member's bonus."""
    admin = await org.admin_headers(world)
    await org.hierarchy(client, admin)
    async with session_maker() as s:
        ids = dict((await s.execute(org.select_station_ids())).all())
        await org.qualifying_history(s, ids[1], org.YESTERDAY, org.days_back(25))
        await kpi.light_units(s, org.YESTERDAY)
        await s.commit()
    member = await world.user()
    members = "/v1/admin/organizations/station-1/members"
    await org.post(client, members, admin, {"user_uid": member.uid})
    auth = org.bearer(await world.token(member.uid, "org:read"))
    r = await client.get("/v1/tech-tree/bonus", headers=auth)
    assert r.json()["data"]["attributes"]["bonus_multiplier"] == 1.1
    r = await client.get("/v1/organizations/station-1", headers=auth)
    assert r.json()["data"]["attributes"]["lit"] is True
    assert r.json()["data"]["attributes"]["lit_since"] == org.YESTERDAY.isoformat()
