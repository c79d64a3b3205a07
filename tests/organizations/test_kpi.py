"""The daily KPI and the lighting rules on real PostgreSQL (and Redis for the bonus cache)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import pytest
from redis.asyncio import Redis
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models.organizations import OrgUnit, StationDailyKpi
from organizations import bonus, bulk, kpi
from organizations.errors import OrgRejected
from tests.organizations.support import days_back, qualifying_history, unit

D = date(2026, 3, 31)
START = datetime.combine(D, time(0), tzinfo=UTC)
NEXT = START + timedelta(days=1)
EARLY = START - timedelta(days=60)

pytestmark = pytest.mark.usefixtures("clean")
Sessions = async_sessionmaker[AsyncSession]


async def _kpis(s: AsyncSession, day: date) -> dict[int, StationDailyKpi]:
    rows = await s.scalars(select(StationDailyKpi).where(StationDailyKpi.day == day))
    return {r.station_id: r for r in rows}


async def _units(s: AsyncSession) -> dict[int, OrgUnit]:
    return {
        u.id: u for u in await s.scalars(select(OrgUnit).execution_options(populate_existing=True))
    }


async def test_members_and_average_boundaries(session_maker: Sessions) -> None:
    async with session_maker() as s:
        mx = await unit(s, "matrix", 1)
        a, b, c, e = [await unit(s, "station", n, "matrix-1") for n in (1, 2, 3, 4)]
        # a: 900 members at exactly 20 USDC; b: 899 at 25; c: 900 at 19.99;
        # e: 900, half at 40 and half at 0 (average exactly 20), one with 0.0000019 extra.
        await bulk.add_members(s, a, "a", 1, 900, EARLY)
        await bulk.add_inputs(s, "a", 1, 900, D, Decimal("20"))
        await bulk.add_members(s, b, "b", 1, 899, EARLY)
        await bulk.add_inputs(s, "b", 1, 899, D, Decimal("25"))
        await bulk.add_members(s, c, "c", 1, 900, EARLY)
        await bulk.add_inputs(s, "c", 1, 900, D, Decimal("19.99"))
        await bulk.add_members(s, e, "e", 1, 900, EARLY)
        await bulk.add_inputs(s, "e", 1, 450, D, Decimal("40"))
        await bulk.add_inputs(s, "e", 451, 451, D, Decimal("0.0000019"), tag="dust")
        # input of the day before and the day after never counts
        await bulk.add_inputs(s, "b", 1, 899, D - timedelta(days=1), Decimal("1000"))
        await bulk.add_inputs(s, "c", 1, 900, D + timedelta(days=1), Decimal("1000"))
        assert await kpi.compute_day(s, D) == 4
        rows = await _kpis(s, D)
        await s.commit()
    assert mx not in rows
    assert (rows[a].member_count, rows[a].avg_input, rows[a].qualifies) == (900, 20_000_000, True)
    assert (rows[b].member_count, rows[b].avg_input, rows[b].qualifies) == (899, 25_000_000, False)
    assert (rows[c].total_input, rows[c].avg_input, rows[c].qualifies) == (
        900 * 19_990_000,
        19_990_000,
        False,
    )
    # 0.0000019 USDC is 1 base unit (rounded down): the average is still exactly 20
    assert (rows[e].total_input, rows[e].avg_input, rows[e].qualifies) == (
        450 * 40_000_000 + 1,
        20_000_000,
        True,
    )


async def test_members_who_join_or_leave_during_the_day(session_maker: Sessions) -> None:
    async with session_maker() as s:
        st = await unit(s, "station", 7)
        await bulk.add_members(s, st, "stay", 1, 3, EARLY)
        # left during the day: not a member at its end, input not counted
        await bulk.add_members(s, st, "gone", 1, 2, EARLY, START + timedelta(hours=23))
        # left exactly at the next midnight: still a member for the whole day
        await bulk.add_members(s, st, "edge", 1, 1, EARLY, NEXT)
        # joined during the day: counted with the whole day's input
        await bulk.add_members(s, st, "late", 1, 1, START + timedelta(hours=23, minutes=59))
        # joined at the next midnight: not yet
        await bulk.add_members(s, st, "next", 1, 1, NEXT)
        for prefix, last in (("stay", 3), ("gone", 2), ("edge", 1), ("late", 1), ("next", 1)):
            await bulk.add_inputs(s, prefix, 1, last, D, Decimal("10"))
        # confirmed in the day's last microsecond and at the next midnight
        await bulk.add_inputs(
            s, "stay", 1, 1, D, Decimal("1"), tag="late", at=NEXT - timedelta(microseconds=1)
        )
        await bulk.add_inputs(s, "stay", 2, 2, D, Decimal("1"), tag="next", at=NEXT)
        await kpi.compute_day(s, D)
        row = (await _kpis(s, D))[st]
        await s.commit()
    assert row.member_count == 5  # stay x3, edge, late
    assert row.total_input == 5 * 10_000_000 + 1_000_000


async def test_station_lights_at_21_days_within_the_window(session_maker: Sessions) -> None:
    async with session_maker() as s:
        ids = [await unit(s, "station", n) for n in (1, 2, 3, 4, 5)]
        await qualifying_history(s, ids[0], D, days_back(20))  # 20 days: dark
        await qualifying_history(s, ids[1], D, days_back(21))  # 21 days: lit
        # 20 recent days + the day just outside the window (D - 30): dark
        await qualifying_history(s, ids[2], D, [*days_back(20), 30])
        # 20 recent days + the window's first day (D - 29): lit
        await qualifying_history(s, ids[3], D, [*days_back(20), 29])
        # 21 days, but a day after the window's end does not count: dark
        await qualifying_history(s, ids[4], D + timedelta(days=1), [0, *range(2, 22)])
        await kpi.light_units(s, D)
        got = await _units(s)
        await s.commit()
    assert [got[i].lit for i in ids] == [False, True, False, True, False]
    assert [got[i].qualifying_days for i in ids] == [20, 21, 20, 21, 20]
    assert got[ids[1]].lit_since == D and got[ids[1]].state_day == D


async def test_higher_units_average_their_stations(session_maker: Sessions, redis: Redis) -> None:
    async with session_maker() as s:
        await unit(s, "system", 1)
        await unit(s, "sector", 1, "system-1")
        await unit(s, "sector", 2, "system-1")
        await unit(s, "matrix", 1, "sector-1")
        await unit(s, "matrix", 2, "sector-1")
        await unit(s, "matrix", 3, "sector-2")
        await unit(s, "matrix", 4, "sector-2")  # no stations: dark
        plan = {
            1: ("matrix-1", 21),
            2: ("matrix-1", 21),
            3: ("matrix-1", 20),
            4: ("matrix-1", 22),
            5: ("matrix-2", 25),
            6: ("matrix-2", 16),
            7: ("matrix-3", 30),
        }
        station = {}
        for number, (parent, days) in plan.items():
            station[number] = await unit(s, "station", number, parent)
            await qualifying_history(s, station[number], D, days_back(days))
        await kpi.light_units(s, D)
        got = {f"{u.unit_type}-{u.number}": u for u in (await _units(s)).values()}
        # members: one per station 1 (lit), 3 (dark) and 7 (lit)
        for number in (1, 3, 7):
            await bulk.add_members(s, station[number], f"m{number}-", 1, 1, EARLY)
        await s.commit()
        db_percents = await bonus.percents_from_db(s, ["m1-1", "m3-1", "m7-1", "nobody"])
    # matrix-1: (21+21+20+22)/4 = 21; matrix-2: 20.5; sector-1: 125/6 = 20.83;
    # matrix-3 and sector-2: 30 (matrix-4 has no station and does not dilute the sector);
    # system-1: 155/7 = 22.14
    assert {k: (u.lit, u.qualifying_days) for k, u in got.items() if u.unit_type != "station"} == {
        "matrix-1": (True, Decimal("21.00")),
        "matrix-2": (False, Decimal("20.50")),
        "matrix-3": (True, Decimal("30.00")),
        "matrix-4": (False, Decimal("0.00")),
        "sector-1": (False, Decimal("20.83")),
        "sector-2": (True, Decimal("30.00")),
        "system-1": (True, Decimal("22.14")),
    }
    # bonuses are cumulative along the member's chain
    assert db_percents == {
        "m1-1": (station[1], 10 + 20 + 40),
        "m3-1": (station[3], 20 + 40),
        "m7-1": (station[7], 100),
        "nobody": (0, 0),
    }
    async with session_maker() as s:
        refreshed = await bonus.refresh_all(s, redis)
        assert refreshed.members == 3 and refreshed.stations == 7
        multipliers = await bonus.multipliers(s, redis, ["m1-1", "m3-1", "m7-1", "nobody"])
    assert multipliers == {
        "m1-1": Decimal("1.7"),
        "m3-1": Decimal("1.6"),
        "m7-1": Decimal("2"),
        "nobody": Decimal("1"),
    }
    assert await redis.hget(bonus.MEMBER_KEY, "m7-1") == str(station[7]).encode()
    assert await redis.hget(bonus.STATION_KEY, str(station[7])) == b"100"
    assert await redis.hget(bonus.MEMBER_KEY, "nobody") == b"0"  # written back on a miss


async def _population(s: AsyncSession, days: int) -> tuple[int, int]:
    """Two stations of 900: ``st`` qualifies every day, ``weak`` never (10 USDC)."""
    st = await unit(s, "station", 1)
    weak = await unit(s, "station", 2)
    await bulk.add_members(s, st, "p", 1, 900, EARLY)
    await bulk.add_members(s, weak, "w", 1, 900, EARLY)
    for k in range(days):
        await bulk.add_inputs(s, "p", 1, 900, D - timedelta(days=k), Decimal("21.5"))
        await bulk.add_inputs(s, "w", 1, 900, D - timedelta(days=k), Decimal("10"))
    return st, weak


async def _snapshot(s: AsyncSession) -> list[tuple[Any, ...]]:
    rows = await s.execute(
        text(
            "SELECT station_id, day, member_count, total_input, avg_input, qualifies, computed_at"
            " FROM org_station_kpis ORDER BY station_id, day"
        )
    )
    return [tuple(r) for r in rows]


async def test_run_day_in_order_idempotent_and_catching_up(session_maker: Sessions) -> None:
    async with session_maker() as s:
        st, weak = await _population(s, 22)
        await s.commit()
    # a first run computes the whole window: 30 days ending D
    assert kpi.days_to_run(None, D) == [D - timedelta(days=29 - k) for k in range(30)]
    for d in kpi.days_to_run(None, D - timedelta(days=5)):
        async with session_maker() as s:
            assert not (await kpi.run_day(s, d)).skipped
            await s.commit()
    async with session_maker() as s:
        assert await kpi.last_completed(s) == D - timedelta(days=5)
        assert not (await _units(s))[st].lit  # 17 qualifying days so far
        before = await _snapshot(s)
        # the same day again: skipped; a day out of order: refused
        assert (await kpi.run_day(s, D - timedelta(days=5))).skipped
        with pytest.raises(OrgRejected, match="out of order"):
            await kpi.run_day(s, D)
        await s.rollback()
        # recomputing a stored day writes nothing (same rows, same computed_at)
        assert await kpi.compute_day(s, D - timedelta(days=6)) == 0
        await s.commit()
        assert await _snapshot(s) == before
    # catch-up after downtime: the missed days, in order
    missed = kpi.days_to_run(D - timedelta(days=5), D)
    assert missed == [D - timedelta(days=4 - k) for k in range(5)]
    for d in missed:
        async with session_maker() as s:
            await kpi.run_day(s, d)
            await s.commit()
    async with session_maker() as s:
        got = await _units(s)
        assert (got[st].lit, got[st].qualifying_days, got[weak].lit) == (True, 22, False)
        assert got[st].lit_since == D - timedelta(days=1)  # its 21st qualifying day
        rows = await _snapshot(s)
    # 35 days per station (D - 34 .. D); the days done before the downtime are untouched
    assert len(rows) == 2 * 35
    assert [r for r in rows if r[1] <= D - timedelta(days=5)] == before


async def test_a_crash_mid_day_leaves_nothing_and_the_rerun_counts_once(
    session_maker: Sessions,
) -> None:
    async with session_maker() as s:
        await _population(s, 1)
        await s.commit()
    # the day's KPI rows are written, then the process dies before the commit
    async with session_maker() as s:
        await kpi.run_day(s, D - timedelta(days=1))
        await s.commit()
    async with session_maker() as s:
        await kpi.compute_day(s, D)
        await kpi.light_units(s, D)
        await s.rollback()  # what a killed connection amounts to
    async with session_maker() as s:
        assert await kpi.last_completed(s) == D - timedelta(days=1)
        assert await _kpis(s, D) == {}
        await kpi.run_day(s, D)
        await s.commit()
        once = {k: (r.member_count, r.total_input) for k, r in (await _kpis(s, D)).items()}
    assert sorted(once.values()) == [(900, 900 * 10_000_000), (900, 900 * 21_500_000)]


async def test_cache_rebuild_streams_every_member(session_maker: Sessions, redis: Redis) -> None:
    """Through COPY and the Lua loader, uids COPY would escape included; one swap."""
    async with session_maker() as s:
        st = await unit(s, "station", 1)
        await qualifying_history(s, st, D, days_back(21))
        await kpi.light_units(s, D)
        await bulk.add_members(s, st, "many-", 1, 12_000, EARLY)
        for odd in ("tab\tuid", "back\\slash", "new\nline", "ünï ćödé"):
            await bulk.add_members(s, st, odd, 1, 1, EARLY)
        await s.commit()
    await redis.hset(bonus.MEMBER_KEY, "stale-user", 99)  # gone after the swap
    async with session_maker() as s:
        outcome = await bonus.refresh_all(s, redis)
    assert (outcome.members, outcome.stations) == (12_004, 1)
    assert await redis.hlen(bonus.MEMBER_KEY) == 12_004
    for uid in ("many-1", "many-12000", "tab\tuid1", "back\\slash1", "new\nline1", "ünï ćödé1"):
        assert await redis.hget(bonus.MEMBER_KEY, uid) == str(st).encode(), uid
    assert await redis.hget(bonus.MEMBER_KEY, "stale-user") is None
    assert await redis.hget(bonus.STATION_KEY, str(st)) == b"10"
    assert await redis.keys("org:bonus:*:new:*") == []


async def test_members_who_join_or_leave_mid_window(session_maker: Sessions) -> None:
    """Each day counts the members of that day's end: before a leave, after a join."""
    mid = START - timedelta(days=1) + timedelta(hours=10)  # D - 1, 10:00
    async with session_maker() as s:
        st = await unit(s, "station", 3)
        await bulk.add_members(s, st, "always", 1, 2, EARLY)
        await bulk.add_members(s, st, "leaver", 1, 1, EARLY, mid)
        await bulk.add_members(s, st, "joiner", 1, 1, mid)
        for back in (2, 1, 0):
            for prefix in ("always", "leaver", "joiner"):
                last = 2 if prefix == "always" else 1
                volume = Decimal(7 if prefix == "joiner" else 5)
                await bulk.add_inputs(s, prefix, 1, last, D - timedelta(days=back), volume)
        counts = {}
        for back in (2, 1, 0):
            day = D - timedelta(days=back)
            await kpi.compute_day(s, day)
            row = (await _kpis(s, day))[st]
            counts[back] = (row.member_count, row.total_input)
        await s.commit()
    # D-2: always x2 + leaver (5 each); D-1, with the leave and the join at 10:00, and D:
    # always x2 (5 each) + joiner (7)
    assert counts == {2: (3, 15_000_000), 1: (3, 17_000_000), 0: (3, 17_000_000)}
