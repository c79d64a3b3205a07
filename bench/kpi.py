"""The tech tree's daily job at full scale, and GET /v1/tech-tree/bonus warm.

On a scratch PostgreSQL database and Redis (DATABASE_URL / REDIS_URL, else the embedded ones
the tests use) it builds a full system: 1 system, 10 sectors, 100 matrices, 1,000 stations,
1,000,000 members (users and memberships), one confirmed mining submission a member a day for
``--submission-days`` days (the last one is the day computed; earlier ones are there so the
job must pick its day out of a larger table), and 29 earlier days of stored station KPI rows,
so the day computed completes a real 30-day window. Then it measures, in the same run:

- scan: one plain SQL aggregate over the same input rows (that day's confirmed submissions);
- job: the daily job for that day as its activities run it (KPI rows for every station, every
  unit's state, the marker, one commit), then the bonus-cache rebuild in Redis;
- memory: peak extra memory during the job of this process, of PostgreSQL's processes
  (private memory, sampled) and of Redis (used_memory);
- bonus: GET /v1/tech-tree/bonus p50/p99 warm (in-process ASGI, sequential), beside a bare
  GET endpoint in the same app.

    .venv/bin/python -m bench.kpi [--stations 1000] [--members 1000] [--submission-days 2]
        [--requests 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psutil
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import api.ratelimit
from activities.organizations import KpiDayRequest, OrganizationActivities
from api.app import create_app
from api.routes.techtree import OrgRead
from authserver.issue import issue_token
from core.config import Settings
from db.models import Project
from db.models.access import OAuthClient
from db.session import create_db_engine, create_session_maker
from organizations.kpi import day_bounds
from tests.factories import clear_rate_windows
from tests.services import fresh_database, redis_server

BASE = "http://127.0.0.1:8000"
DAY = datetime.now(UTC).date() - timedelta(days=1)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


async def populate(settings: Settings, stations: int, members: int, submission_days: int) -> None:
    """The whole population in a handful of set-based statements."""
    engine = create_db_engine(settings)
    per_matrix = 10
    matrices = max(stations // per_matrix, 1)
    sectors = max(matrices // 10, 1)
    total = stations * members
    async with engine.begin() as c:
        await c.execute(text("SET LOCAL synchronous_commit = off"))
        await c.execute(
            text(
                """
                INSERT INTO org_units (unit_type, number, name, parent_id)
                VALUES ('system', 1, 'System 1', NULL);
                INSERT INTO org_units (unit_type, number, name, parent_id)
                SELECT 'sector', n, 'Sector ' || n, (SELECT id FROM org_units
                    WHERE unit_type = 'system') FROM generate_series(1, :sectors) n;
                INSERT INTO org_units (unit_type, number, name, parent_id)
                SELECT 'matrix', n, 'Matrix ' || n, s.id FROM generate_series(1, :matrices) n
                JOIN org_units s ON s.unit_type = 'sector' AND s.number = (n - 1) / 10 + 1;
                INSERT INTO org_units (unit_type, number, name, parent_id)
                SELECT 'station', n, 'Station ' || n, m.id FROM generate_series(1, :stations) n
                JOIN org_units m ON m.unit_type = 'matrix' AND m.number = (n - 1) / 10 + 1;
                """.replace(":sectors", str(sectors))
                .replace(":matrices", str(matrices))
                .replace(":stations", str(stations))
            )
        )
    log(f"units: {stations} stations, {matrices} matrices, {sectors} sectors, 1 system")
    started = time.perf_counter()
    async with engine.begin() as c:
        await c.execute(text("SET LOCAL synchronous_commit = off"))
        await c.execute(
            text(
                f"""
                INSERT INTO users (uid, username, email, role)
                SELECT 'm' || i, 'm' || i, 'm' || i || '@bench.local', 'unit_member'
                FROM generate_series(1, {total}) i
                """
            )
        )
        await c.execute(
            text(
                f"""
                INSERT INTO org_memberships (user_uid, station_id, joined_at)
                SELECT 'm' || i, s.id, now() - interval '60 days'
                FROM generate_series(1, {total}) i
                JOIN org_units s ON s.unit_type = 'station'
                    AND s.number = (i - 1) / {members} + 1
                """
            )
        )
    log(f"{total:,} users and memberships in {time.perf_counter() - started:.1f} s")
    # Stations of sectors 1..5 qualify when number % 10 < 7 (matrices average 23.4 days: lit);
    # of sectors 6..10 when number % 10 < 5 (average 19: dark); the others qualify one day in
    # four. A qualifying station's members put in 25 USDC +- 1, the others 10 +- 1.
    strong = "(((n - 1) / 100 < 5 AND n % 10 < 7) OR ((n - 1) / 100 >= 5 AND n % 10 < 5))"
    for back in range(submission_days):
        day = DAY - timedelta(days=back)
        start, _ = day_bounds(day)
        started = time.perf_counter()
        async with engine.begin() as c:
            await c.execute(text("SET LOCAL synchronous_commit = off"))
            await c.execute(
                text(
                    f"""
                    INSERT INTO mining_activities
                        (id, project_id, user_uid, activity_type, activity_data, proof,
                         canonical, idempotency_key, status, mcd_amount, reward_day,
                         workflow_id, history, confirmed_at)
                    SELECT 'act_' || i || '_' || {back}, 1000, 'm' || i, 'trade',
                           jsonb_build_object('trade_volume_usdc',
                               CASE WHEN {strong.replace("n", "((i - 1) / {members} + 1)")}
                                    THEN 25 ELSE 10 END + (i % 2) * 2 - 1),
                           '{{}}'::jsonb, '', 'k' || i || '_' || {back}, 'confirmed', 0,
                           DATE '{day}', 'bench', '[]'::jsonb,
                           TIMESTAMPTZ '{start.isoformat()}' + (i % 86400) * interval '1 s'
                    FROM generate_series(1, {total}) i
                    """.replace("{members}", str(members))
                )
            )
        log(f"{total:,} submissions for {day} in {time.perf_counter() - started:.1f} s")
    async with engine.begin() as c:
        await c.execute(
            text(
                f"""
                INSERT INTO org_station_kpis
                    (station_id, day, member_count, total_input, avg_input, qualifies)
                SELECT s.id, DATE '{DAY}' - k, {members}, {members}::bigint * 20000000,
                       20000000, {strong.replace("n", "s.number")} OR k % 4 = 0
                FROM org_units s CROSS JOIN generate_series(1, 29) k
                WHERE s.unit_type = 'station';
                INSERT INTO org_kpi_progress (job, last_completed_day)
                VALUES ('daily_kpi', DATE '{DAY}' - 1);
                """
            )
        )
    async with engine.connect() as c:
        auto = await c.execution_options(isolation_level="AUTOCOMMIT")
        await auto.execute(text("VACUUM ANALYZE"))
    log("29 days of KPI history; VACUUM ANALYZE done")
    await engine.dispose()


class Peak:
    """Samples memory every 50 ms: this process, PostgreSQL's processes (RSS less shared)."""

    def __init__(self) -> None:
        self.me = psutil.Process()
        self.pg = [
            p
            for p in psutil.process_iter(["name", "cmdline"])
            if "postgres" in (p.info["name"] or "")
        ]
        self.base = self.sample()
        self.peak = self.base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> tuple[int, int]:
        pg = 0
        for p in self.pg:
            try:
                info = p.memory_info()
                pg += info.rss - getattr(info, "shared", 0)
            except psutil.Error:
                pass
        return self.me.memory_info().rss, pg

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            now = self.sample()
            self.peak = (max(self.peak[0], now[0]), max(self.peak[1], now[1]))

    def __enter__(self) -> Peak:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def extra_mb(self) -> tuple[float, float]:
        return (self.peak[0] - self.base[0]) / 2**20, (self.peak[1] - self.base[1]) / 2**20


async def measure_job(settings: Settings) -> None:
    engine = create_db_engine(settings)
    sessions = create_session_maker(engine)
    redis = Redis.from_url(settings.redis_url)
    start, end = day_bounds(DAY)
    async with engine.connect() as c:
        started = time.perf_counter()
        row = (
            await c.execute(
                text(
                    "SELECT count(*), sum(floor((activity_data ->> 'trade_volume_usdc')::numeric"
                    " * 1000000))::bigint FROM mining_activities WHERE status = 'confirmed'"
                    " AND confirmed_at >= :s AND confirmed_at < :e"
                ),
                {"s": start, "e": end},
            )
        ).one()
        scan = time.perf_counter() - started
    log(f"scan: {row[0]:,} submissions, {row[1] / 1e6:,.0f} USDC in {scan:.2f} s")
    activities = OrganizationActivities(sessions, redis)
    redis_before = int((await redis.info("memory"))["used_memory"])
    with Peak() as peak:
        started = time.perf_counter()
        day = await activities.run_day(KpiDayRequest(day=DAY.isoformat()))
        kpi_seconds = time.perf_counter() - started
        started = time.perf_counter()
        cached = await activities.refresh_bonus_cache()
        cache_seconds = time.perf_counter() - started
    redis_after = int((await redis.info("memory"))["used_memory"])
    async with engine.connect() as c:
        lit: dict[str, int] = dict(
            (
                await c.execute(
                    text("SELECT unit_type || ':' || lit, count(*) FROM org_units GROUP BY 1")
                )
            ).all()
        )
    me_mb, pg_mb = peak.extra_mb()
    print()
    print(
        f"daily job for {DAY}: {day.kpi_rows} station KPI rows, {day.units_changed} units changed"
    )
    print(f"  units by type:lit      {dict(sorted(lit.items()))}")
    print(f"  plain aggregate scan   {scan:8.2f} s   (same input rows)")
    print(f"  KPI + states + marker  {kpi_seconds:8.2f} s   ({kpi_seconds / scan:.1f}x the scan)")
    print(f"  bonus cache rebuild    {cache_seconds:8.2f} s   ({cached.members:,} members)")
    print(f"  end to end             {kpi_seconds + cache_seconds:8.2f} s   (aim <= 60 s)")
    print(f"  extra memory: this process {me_mb:.0f} MB, PostgreSQL {pg_mb:.0f} MB (private),")
    print(f"    Redis {(redis_after - redis_before) / 2**20:.0f} MB   (aim <= 1 GB)")
    await redis.aclose()
    await engine.dispose()


async def measure_bonus(settings: Settings, n: int) -> None:
    app: FastAPI = create_app(settings)
    api.ratelimit.EXEMPT_PREFIXES = (*api.ratelimit.EXEMPT_PREFIXES, "/bench/")

    @app.get("/bench/bare")
    async def bare() -> dict[str, Any]:
        return {"data": {"ok": True}}

    @app.get("/bench/auth")
    async def auth_only(user: OrgRead) -> dict[str, Any]:
        return {"data": {"uid": user.uid}}

    async with app.router.lifespan_context(app):
        async with app.state.session_maker() as s:
            project = Project(name="bench", allowed_scopes=[], ip_allowlist=[], limits={})
            s.add(project)
            await s.flush()
            s.add(
                OAuthClient(
                    client_id="cl_bench", project_id=project.project_id, name="bench",
                    client_secret_hash=None,
                    redirect_uris=["http://localhost/cb"], allowed_scopes=["org:read"],
                    grant_types=["authorization_code"], access_token_format="jwt",
                )
            )  # fmt: skip
            await s.commit()
        issued = await asyncio.to_thread(
            issue_token, app.state.auth_server, user="m1", scope="org:read", client_id="cl_bench"
        )
        headers = {"Authorization": f"Bearer {issued['access_token']}"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:

            async def timed(call: Callable[[], Awaitable[httpx.Response]]) -> list[float]:
                for _ in range(50):
                    (await call()).raise_for_status()
                samples = []
                for i in range(n):
                    if i % 50 == 0:  # a user may make 100 calls a minute: start a fresh window
                        await clear_rate_windows(app.state.redis)
                    started = time.perf_counter()
                    (await call()).raise_for_status()
                    samples.append((time.perf_counter() - started) * 1000)
                return sorted(samples)

            await clear_rate_windows(app.state.redis)
            answer = (await client.get("/v1/tech-tree/bonus", headers=headers)).json()
            bonus = await timed(lambda: client.get("/v1/tech-tree/bonus", headers=headers))
            bare_ms = await timed(lambda: client.get("/bench/bare"))
            auth_ms = await timed(lambda: client.get("/bench/auth", headers=headers))
    print()
    print(f"GET /v1/tech-tree/bonus for m1: {answer['data']['attributes']}")
    print(f"{'endpoint':<24}{'n':>6}{'p50 ms':>9}{'p99 ms':>9}")
    rows = (("bare GET", bare_ms), ("bearer check only", auth_ms), ("/v1/tech-tree/bonus", bonus))
    for name, s in rows:
        print(f"{name:<24}{len(s):>6}{s[len(s) // 2]:>9.2f}{s[int(len(s) * 0.99)]:>9.2f}")
    print("(warm, in-process ASGI, sequential; aim: bonus p50 <= 3 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=1000)
    parser.add_argument("--members", type=int, default=1000, help="members per station")
    parser.add_argument("--submission-days", type=int, default=2)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mccgw-bench-kpi-"))
    tmp.chmod(0o755)  # pgserver runs postgres as its own user
    try:
        with fresh_database(tmp) as db_url, redis_server(tmp) as redis_url:
            settings = Settings(
                environment="test", database_url=db_url, redis_url=redis_url,
                log_level="WARNING", log_json=False, avatar_dir=tmp / "avatars",
            )  # fmt: skip
            asyncio.run(populate(settings, args.stations, args.members, args.submission_days))
            asyncio.run(measure_job(settings))
            asyncio.run(measure_bonus(settings, args.requests))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
