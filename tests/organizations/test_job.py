"""The daily job through Temporal: the 00:30 UTC schedule, catch-up in order, an activity that
dies in the middle of a day resuming without counting twice, the bonus cache it refreshes,
and the multiplier applied to a mining reward."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from db.models.organizations import OrgMembership, OrgUnit
from organizations import bonus, bulk, kpi
from tests.factories import World
from tests.mining.test_mining import activity, setup, submit
from tests.organizations.support import days_back, qualifying_history, unit
from worker import WORKFLOW_RUNNER
from workflows.organizations import (
    DAILY_KPI_SCHEDULE_ID,
    DailyKpiInput,
    DailyKpiWorkflow,
)
from workflows.schedules import ensure_daily_kpi_schedule

pytestmark = pytest.mark.usefixtures("clean")
Sessions = async_sessionmaker[AsyncSession]
D = date(2026, 5, 31)
EARLY = datetime(2026, 1, 1, tzinfo=UTC)


async def test_the_schedule_runs_daily_at_00_30_utc(
    temporal_env: WorkflowEnvironment, worker: str
) -> None:
    client = temporal_env.client
    await ensure_daily_kpi_schedule(client, worker)
    await ensure_daily_kpi_schedule(client, worker)  # a second worker start: unchanged
    handle = client.get_schedule_handle(DAILY_KPI_SCHEDULE_ID)
    try:
        described = await handle.describe()
        action = described.schedule.action
        assert getattr(action, "workflow", None) == "DailyKpiWorkflow"
        upcoming = described.info.next_action_times
        assert upcoming and all(
            (t.astimezone(UTC).hour, t.astimezone(UTC).minute) == (0, 30) for t in upcoming
        )
    finally:
        await handle.delete()


async def _kpi_rows(s: AsyncSession) -> list[tuple[object, ...]]:
    rows = await s.execute(
        text(
            "SELECT station_id, day, member_count, total_input, avg_input, qualifies, computed_at"
            " FROM org_station_kpis ORDER BY day, station_id"
        )
    )
    return [tuple(r) for r in rows]


async def test_catch_up_with_a_crash_mid_day_counts_each_day_once(
    temporal_env: WorkflowEnvironment, worker: str, session_maker: Sessions, redis: Redis
) -> None:
    async with session_maker() as s:
        st = await unit(s, "station", 1)
        weak = await unit(s, "station", 2)
        await bulk.add_members(s, st, "j", 1, 900, EARLY)
        await bulk.add_members(s, weak, "k", 1, 899, EARLY)
        for k in range(3):
            await bulk.add_inputs(s, "j", 1, 900, D - timedelta(days=k), Decimal(20 + k))
            await bulk.add_inputs(s, "k", 1, 899, D - timedelta(days=k), Decimal(50))
        # the job last completed D - 3; the days since were missed (downtime)
        await s.execute(
            text("INSERT INTO org_kpi_progress (job, last_completed_day) VALUES (:j, :d)"),
            {"j": kpi.JOB, "d": D - timedelta(days=3)},
        )
        # The database kills the first attempt at D - 1 after part of its rows are written
        # (a sequence is not rolled back, so only the first attempt fails).
        await s.execute(
            text(
                f"""
                CREATE SEQUENCE kpi_crash;
                CREATE FUNCTION kpi_crash() RETURNS trigger AS $$
                BEGIN
                    IF NEW.day = DATE '{D - timedelta(days=1)}' AND NEW.station_id = {weak}
                       AND nextval('kpi_crash') = 1 THEN
                        RAISE EXCEPTION 'injected crash in the middle of a day';
                    END IF;
                    RETURN NEW;
                END $$ LANGUAGE plpgsql;
                CREATE TRIGGER kpi_crash BEFORE INSERT ON org_station_kpis
                    FOR EACH ROW EXECUTE FUNCTION kpi_crash();
                """
            )
        )
        await s.commit()
    workflow_id = f"kpi-test-{uuid.uuid4().hex[:8]}"
    try:
        result = await temporal_env.client.execute_workflow(
            DailyKpiWorkflow.run,
            DailyKpiInput(through=D.isoformat()),
            id=workflow_id,
            task_queue=worker,
        )
        async with session_maker() as s:
            crashes = await s.scalar(text("SELECT last_value FROM kpi_crash"))
            rows = await _kpi_rows(s)
            assert await kpi.last_completed(s) == D
            station = await s.get(OrgUnit, st)
    finally:
        async with session_maker() as s:
            await s.execute(
                text("DROP TRIGGER kpi_crash ON org_station_kpis; DROP FUNCTION kpi_crash();"
                     "DROP SEQUENCE kpi_crash")
            )  # fmt: skip
            await s.commit()
    assert crashes >= 2  # the first attempt at D - 1 died, a retry completed it
    assert result.days == [(D - timedelta(days=k)).isoformat() for k in (2, 1, 0)]
    # each day once, with the numbers of a clean run: st 900 x (20 + k) USDC, weak 899 x 50
    assert [(r[0], r[1], r[2], r[3], r[5]) for r in rows] == [
        row
        for k in (2, 1, 0)
        for row in (
            (st, D - timedelta(days=k), 900, 900 * (20 + k) * 10**6, True),
            (weak, D - timedelta(days=k), 899, 899 * 50 * 10**6, False),
        )
    ]
    assert station is not None and station.state_day == D and station.qualifying_days == 3
    # the second run finds nothing to do and changes nothing
    again = await temporal_env.client.execute_workflow(
        DailyKpiWorkflow.run,
        DailyKpiInput(through=D.isoformat()),
        id=f"kpi-test-{uuid.uuid4().hex[:8]}",
        task_queue=worker,
    )
    assert again.days == [] and again.members_cached == 900 + 899
    async with session_maker() as s:
        assert await _kpi_rows(s) == rows
    assert await redis.hget(bonus.MEMBER_KEY, "j1") == str(st).encode()
    assert await redis.hget(bonus.STATION_KEY, str(st)) == b"0"
    # the recorded history replays deterministically with today's workflow code
    history = await temporal_env.client.get_workflow_handle(workflow_id).fetch_history()
    await Replayer(workflows=[DailyKpiWorkflow], workflow_runner=WORKFLOW_RUNNER).replay_workflow(
        history
    )


async def test_the_cached_multiplier_is_applied_to_mining_rewards(
    client: httpx.AsyncClient, world: World, session_maker: Sessions, redis: Redis, worker: str
) -> None:
    creds, uid = await setup(client, world)
    yesterday = datetime.now(UTC).date() - timedelta(days=1)
    async with session_maker() as s:
        await unit(s, "sector", 1)
        await unit(s, "matrix", 1, "sector-1")
        st = await unit(s, "station", 1, "matrix-1")
        await qualifying_history(s, st, yesterday, days_back(21))
        # station, matrix and sector lit (each averages the one station's 21 days): +60 %
        await kpi.light_units(s, yesterday)
        s.add(OrgMembership(user_uid=uid, station_id=st, joined_at=EARLY, left_at=None))
        await s.commit()
        await bonus.refresh_all(s, redis)
    r = await submit(client, creds, activity(uid, creds.secret))
    assert r.status_code == 202, r.text
    # (1 + 1500 x 0.001 + 12 x 0.01 + 42.5 x 0.01) x 1.6 = 3.045 x 1.6
    assert r.json()["data"]["attributes"]["mcd_estimated"] == "4.872"
    # the reward follows the cache: the units dim in the database, the cache still says 1.6
    async with session_maker() as s:
        await s.execute(text("UPDATE org_units SET lit = false"))
        await s.commit()
    r = await submit(client, creds, activity(uid, creds.secret))
    assert r.json()["data"]["attributes"]["mcd_estimated"] == "4.872"
    # once refreshed (the daily job's last step), the bonus is gone
    async with session_maker() as s:
        await bonus.refresh_all(s, redis)
    r = await submit(client, creds, activity(uid, creds.secret))
    assert r.json()["data"]["attributes"]["mcd_estimated"] == "3.045"
