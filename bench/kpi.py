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
- bonus: GET /v1/tech-tree/bonus warm on one API worker loaded by wrk (bench/_load.py),
  beside a bare route and a bearer-only route of the same app in the same run.

    .venv/bin/python -m bench.kpi [--stations 1000] [--members 1000] [--submission-days 2]
        [--seconds 5] [--connections 16] [--bonus-only]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psutil
import sqlalchemy
from redis.asyncio import Redis
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from authserver.issue import issue_token
from authserver.server import AuthServer
from bench import _load as load
from bench._report import record
from core.config import Settings
from core.embedded import free_port
from db.session import create_db_engine, create_session_maker
from organizations import bonus, kpi
from organizations.kpi import day_bounds
from tests.services import fresh_database, redis_server

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
    redis_before = int((await redis.info("memory"))["used_memory"])
    with Peak() as peak:
        started = time.perf_counter()
        # What the daily job's activities do (activities/organizations.py), its services called
        # directly: one transaction for the day, then the cache.
        async with sessions() as session:
            day = await kpi.run_day(session, DAY)
            await session.commit()
        kpi_seconds = time.perf_counter() - started
        started = time.perf_counter()
        async with sessions() as session:
            cached = await bonus.refresh_all(session, redis)
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


def measure_bonus(
    settings: Settings,
    seconds: float,
    connections: int,
    profile: Path | None = None,
    rounds: int = 5,
) -> None:
    """GET /v1/tech-tree/bonus warm on one API worker under wrk (bench/_load.py), beside the
    bare and the bearer-only routes of the same app in the same run."""
    engine = sqlalchemy.create_engine(settings.database_url)
    try:
        with engine.begin() as c:
            project = c.execute(
                text(
                    "INSERT INTO projects (name, allowed_scopes, rate_limit_tier, ip_allowlist, "
                    "limits) VALUES ('bench', '{}', 'enterprise', '{}', '{}') RETURNING project_id"
                )
            ).scalar_one()
            c.execute(
                text(
                    "INSERT INTO oauth_clients (client_id, project_id, name, redirect_uris, "
                    "allowed_scopes, grant_types, access_token_format) VALUES ('cl_bench', :p, "
                    "'bench', '{http://localhost/cb}', '{org:read}', '{authorization_code}', "
                    "'jwt')"
                ),
                {"p": project},
            )
        issued = issue_token(
            AuthServer(settings, engine), user="m1", scope="org:read", client_id="cl_bench"
        )
    finally:
        engine.dispose()
    bearer = {"Authorization": f"Bearer {issued['access_token']}"}
    env = {
        "ENVIRONMENT": "test",
        "DATABASE_URL": settings.database_url,
        "REDIS_URL": settings.redis_url,
        "TEMPORAL_ADDRESS": "127.0.0.1:1",  # lazy client: never contacted here
        "SOLANA_RPC_URL": "http://127.0.0.1:1",  # no chain on this path
        "AVATAR_DIR": str(settings.avatar_dir),
        "LOG_LEVEL": "ERROR",
    }
    port = free_port()
    print()
    with load.api_process("bench._load:bench_app", env, port) as api:
        answer = load.get(port, "/v1/tech-tree/bonus", bearer)
        print(f"GET /v1/tech-tree/bonus for m1: {answer['data']['attributes']}")
        print(load.load_line())
        print(f"{load.HEADER}  (1 worker, wrk, {connections} connections)")
        routes: tuple[tuple[str, str, dict[str, str]], ...] = (
            ("bare GET (reference)", "/bench/bare", {}),
            ("bearer check only", "/bench/auth", bearer),
            ("GET /v1/tech-tree/bonus", "/v1/tech-tree/bonus", bearer),
        )
        first: dict[str, tuple[load.Figure, dict[str, str]]] = {}
        for name, path, headers in routes:
            slug = path.strip("/").replace("/", "_")
            figure = load.measure(
                api, port, path, headers, connections=connections, seconds=seconds,
                profile=profile / f"{slug}.txt" if profile else None,
            )  # fmt: skip
            print(load.row(name, figure), flush=True)
            first[path] = (figure, headers)
        if rounds > 1:
            print(f"rate and CPU: the median of {rounds} runs, the routes in turn in each round")
        steady = load.in_turn(
            api, port, first, rounds=rounds, connections=connections, seconds=seconds
        )
        figures: dict[str, dict[str, float]] = {}
        for name, path, _ in routes:
            if rounds > 1:
                print(load.row(name, steady[path]), flush=True)
            figures[path] = asdict(steady[path])
    print(load.load_line())
    print("aim: bonus p50 <= 3 ms (warm)")
    record("kpi_bonus", figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=1000)
    parser.add_argument("--members", type=int, default=1000, help="members per station")
    parser.add_argument("--submission-days", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0, help="per bonus latency/rate run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--profile", type=Path, help="directory for py-spy profiles (bonus)")
    parser.add_argument(
        "--rounds", type=int, default=5, help="rate runs of each bonus route, in turn (the median)"
    )
    parser.add_argument(
        "--bonus-only", action="store_true",
        help="a small system (10 stations of 10) and the bonus read only",
    )  # fmt: skip
    args = parser.parse_args()
    if args.bonus_only:
        args.stations, args.members, args.submission_days = 10, 10, 1
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
            measure_bonus(settings, args.seconds, args.connections, args.profile, args.rounds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
