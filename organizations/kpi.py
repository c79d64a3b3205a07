"""The daily station KPI and the tech-tree states, set-based (a handful of statements for any
number of members; no per-member Python).

One UTC day ``d``:

1. ``compute_day``: one INSERT ... SELECT upserts a row per station keyed (station, d):
   members at the day's end (a membership open at ``d + 1`` 00:00 UTC), the sum of their
   daily mining input (``activity_data.trade_volume_usdc`` of their submissions confirmed
   that UTC day, in USDC base units, each rounded down to 6 decimals), the average (rounded
   down) and whether the day qualifies. Re-running it writes nothing when nothing changed.
2. ``light_units``: one UPDATE sets every unit's state for the window ``d - 29 .. d``: a
   station's qualifying days, the average over the stations under a matrix, sector or system,
   lit at 21 or more.
3. ``run_day`` does both and moves the job's marker to ``d`` in the same transaction, under a
   transaction-level advisory lock, refusing days out of order: a crash leaves the day wholly
   undone (the caller commits once), and a day already done is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import Date, DateTime

from organizations.errors import OrgRejected
from organizations.rules import MIN_AVG_INPUT, MIN_MEMBERS, MIN_QUALIFYING_DAYS, USDC, window

JOB = "daily_kpi"
_LOCK_KEY = 0x6F72_6B70_6900  # any constant: serialises runs of the daily job

# The inputs of one UTC day per user, the members at the day's end per station, one row per
# station (stations without members get a zero row).
_COMPUTE = text(
    f"""
WITH input AS (
    SELECT a.user_uid,
           sum(floor((a.activity_data ->> 'trade_volume_usdc')::numeric * {USDC}))::bigint
               AS amount
    FROM mining_activities a
    WHERE a.status = 'confirmed' AND a.confirmed_at >= :start AND a.confirmed_at < :end
      AND jsonb_typeof(a.activity_data -> 'trade_volume_usdc') = 'number'
    GROUP BY a.user_uid
),
counted AS (
    SELECT m.station_id, count(*)::int AS members, coalesce(sum(i.amount), 0)::bigint AS total
    FROM org_memberships m
    LEFT JOIN input i ON i.user_uid = m.user_uid
    WHERE m.joined_at < :end AND (m.left_at IS NULL OR m.left_at >= :end)
    GROUP BY m.station_id
),
rows AS (
    SELECT s.id AS station_id,
           coalesce(c.members, 0) AS members,
           coalesce(c.total, 0) AS total
    FROM org_units s
    LEFT JOIN counted c ON c.station_id = s.id
    WHERE s.unit_type = 'station'
)
INSERT INTO org_station_kpis AS k
    (station_id, day, member_count, total_input, avg_input, qualifies, computed_at)
SELECT station_id, :day, members, total,
       CASE WHEN members > 0 THEN total / members ELSE 0 END,
       members >= {MIN_MEMBERS} AND total >= {MIN_AVG_INPUT}::bigint * members,
       now()
FROM rows
ON CONFLICT (station_id, day) DO UPDATE SET
    member_count = EXCLUDED.member_count,
    total_input = EXCLUDED.total_input,
    avg_input = EXCLUDED.avg_input,
    qualifies = EXCLUDED.qualifies,
    computed_at = EXCLUDED.computed_at
WHERE (k.member_count, k.total_input, k.qualifies)
      IS DISTINCT FROM (EXCLUDED.member_count, EXCLUDED.total_input, EXCLUDED.qualifies)
"""
).bindparams(
    bindparam("day", type_=Date()),
    bindparam("start", type_=DateTime(timezone=True)),
    bindparam("end", type_=DateTime(timezone=True)),
)

# Every unit's state for the window first..day: a station's qualifying days; the average of
# its stations' days for a matrix, sector or system (0 when none exists under it).
_LIGHT = text(
    f"""
WITH days AS (
    SELECT s.id AS station_id, count(k.day) FILTER (WHERE k.qualifies)::numeric AS n
    FROM org_units s
    LEFT JOIN org_station_kpis k
        ON k.station_id = s.id AND k.day BETWEEN :first AND :day
    WHERE s.unit_type = 'station'
    GROUP BY s.id
),
chain AS (
    SELECT d.station_id, d.n, mx.id AS matrix_id, se.id AS sector_id, sy.id AS system_id
    FROM days d
    JOIN org_units st ON st.id = d.station_id
    LEFT JOIN org_units mx ON mx.id = st.parent_id
    LEFT JOIN org_units se ON se.id = mx.parent_id
    LEFT JOIN org_units sy ON sy.id = se.parent_id
),
per_unit AS (
    SELECT station_id AS unit_id, n AS q FROM chain
    UNION ALL SELECT matrix_id, avg(n) FROM chain WHERE matrix_id IS NOT NULL GROUP BY matrix_id
    UNION ALL SELECT sector_id, avg(n) FROM chain WHERE sector_id IS NOT NULL GROUP BY sector_id
    UNION ALL SELECT system_id, avg(n) FROM chain WHERE system_id IS NOT NULL GROUP BY system_id
),
states AS (
    SELECT u.id, coalesce(p.q, 0) >= {MIN_QUALIFYING_DAYS} AS lit,
           trunc(coalesce(p.q, 0), 2) AS q
    FROM org_units u
    LEFT JOIN per_unit p ON p.unit_id = u.id
)
UPDATE org_units u SET
    lit = s.lit,
    qualifying_days = s.q,
    state_day = :day,
    lit_since = CASE WHEN NOT s.lit THEN NULL WHEN u.lit THEN u.lit_since ELSE :day END,
    updated_at = now()
FROM states s
WHERE s.id = u.id
  AND (u.lit, u.qualifying_days, u.state_day) IS DISTINCT FROM (s.lit, s.q, :day)
RETURNING u.id, u.lit
"""
).bindparams(bindparam("first", type_=Date()), bindparam("day", type_=Date()))

_MARK = text(
    """
INSERT INTO org_kpi_progress (job, last_completed_day, updated_at)
VALUES (:job, :day, now())
ON CONFLICT (job) DO UPDATE SET last_completed_day = EXCLUDED.last_completed_day,
                                updated_at = now()
"""
).bindparams(bindparam("day", type_=Date()))


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(0), tzinfo=UTC)
    return start, start + timedelta(days=1)


async def compute_day(session: AsyncSession, day: date) -> int:
    """Upsert every station's KPI row for ``day``; the number of rows written or changed."""
    start, end = day_bounds(day)
    result = await session.execute(_COMPUTE, {"day": day, "start": start, "end": end})
    return int(getattr(result, "rowcount", 0) or 0)


async def light_units(session: AsyncSession, day: date) -> int:
    """Set every unit's state for the window ending ``day``; the number of units changed."""
    first, last = window(day)
    result = await session.execute(_LIGHT, {"first": first, "day": last})
    return len(result.all())


async def last_completed(session: AsyncSession) -> date | None:
    value = await session.scalar(
        text("SELECT last_completed_day FROM org_kpi_progress WHERE job = :job"), {"job": JOB}
    )
    return value if isinstance(value, date) else None


def days_to_run(done: date | None, through: date) -> list[date]:
    """The days after ``done`` up to ``through``, in order; the whole window on a first run."""
    first = done + timedelta(days=1) if done is not None else window(through)[0]
    return [first + timedelta(days=i) for i in range((through - first).days + 1)]


@dataclass(frozen=True)
class DayOutcome:
    day: date
    skipped: bool
    kpi_rows: int
    units_changed: int


async def run_day(session: AsyncSession, day: date) -> DayOutcome:
    """The whole job for one day (flush only: the caller commits once, so the KPI rows, the
    unit states and the marker land together or not at all)."""
    await session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
    done = await last_completed(session)
    if done is not None and day <= done:
        return DayOutcome(day, skipped=True, kpi_rows=0, units_changed=0)
    if done is not None and day != done + timedelta(days=1):
        raise OrgRejected(
            f"KPI day {day} is out of order: the last completed day is {done}",
            slug="kpi-day-out-of-order",
            status=409,
        )
    rows = await compute_day(session, day)
    changed = await light_units(session, day)
    await session.execute(_MARK, {"job": JOB, "day": day})
    return DayOutcome(day, skipped=False, kpi_rows=rows, units_changed=changed)
