"""Mining statistics from confirmed submissions: the caller's totals by UTC day and project,
and the public global figures (cached for a minute)."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import Field
from redis.exceptions import RedisError
from sqlalchemy import bindparam, text
from sqlalchemy.types import DateTime

from api.auth.principal import ProjectPrincipal, UserPrincipal
from api.callers import PUBLIC, MiningReader
from api.deps import DecimalsDep, RedisDep, SessionDep
from api.envelope import single
from api.openapi import problems
from api.typed import One, Shape
from core.money import to_decimal_string
from organizations.rules import USDC, USDC_DECIMALS

router = APIRouter(prefix="/v1/mining", tags=["mining"])

Days = Annotated[int, Query(ge=1, le=90, description="How many UTC days back, today included")]
GLOBAL_CACHE_SECONDS = 60

_VOLUME = f"floor((activity_data ->> 'trade_volume_usdc')::numeric * {USDC})"
_VOLUME_SUM = (
    f"coalesce(sum({_VOLUME}) FILTER "
    "(WHERE jsonb_typeof(activity_data -> 'trade_volume_usdc') = 'number'), 0)::bigint"
)
_MINE = text(
    f"""
SELECT (confirmed_at AT TIME ZONE 'UTC')::date AS day, project_id, count(*) AS activities,
       sum(mcd_amount)::bigint AS mcd, {_VOLUME_SUM} AS volume
FROM mining_activities
WHERE status = 'confirmed' AND confirmed_at >= :since
  AND (CAST(:uid AS text) IS NULL OR user_uid = :uid)
  AND (CAST(:project AS bigint) IS NULL OR project_id = :project)
GROUP BY 1, 2
ORDER BY 1 DESC, 2
"""
).bindparams(bindparam("since", type_=DateTime(timezone=True)))
_GLOBAL = text(
    f"""
SELECT (confirmed_at AT TIME ZONE 'UTC')::date AS day, count(*) AS activities,
       count(DISTINCT user_uid) AS miners, sum(mcd_amount)::bigint AS mcd, {_VOLUME_SUM} AS volume
FROM mining_activities
WHERE status = 'confirmed' AND confirmed_at >= :since
GROUP BY 1
ORDER BY 1 DESC
"""
).bindparams(bindparam("since", type_=DateTime(timezone=True)))

_PUBLIC_PROBLEMS = problems(429, s422="`validation-error` (days)")
PROBLEMS = problems(401, 403) | _PUBLIC_PROBLEMS


def _since(days: int) -> datetime:
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return today - timedelta(days=days - 1)


class DayProject(Shape):
    date: str
    project_id: str
    activities: int
    mcd_amount: str = Field(description="MCD, decimal string")
    trade_volume_usdc: str = Field(description="USDC, decimal string")


class MiningTotals(Shape):
    activities: int
    mcd_amount: str
    trade_volume_usdc: str


class MiningStatsAttributes(Shape):
    since: str
    days: list[DayProject]
    totals: MiningTotals


@router.get("/stats", response_model=One[MiningStatsAttributes], responses=PROBLEMS)
async def mining_stats(
    reader: MiningReader,
    session: SessionDep,
    mints: DecimalsDep,
    days: Days = 30,
) -> dict[str, Any]:
    """The caller's confirmed mining totals by UTC day and project (a user's, or a project's)."""
    decimals = mints.mcd  # the MCD mint's own
    since = _since(days)
    uid = reader.uid if isinstance(reader, UserPrincipal) else None
    project = reader.project_id if isinstance(reader, ProjectPrincipal) else None
    rows = (await session.execute(_MINE, {"since": since, "uid": uid, "project": project})).all()
    items = [
        {
            "date": day.isoformat(),
            "project_id": str(project_id),
            "activities": count,
            "mcd_amount": to_decimal_string(mcd, decimals),
            "trade_volume_usdc": to_decimal_string(volume, USDC_DECIMALS),
        }
        for day, project_id, count, mcd, volume in rows
    ]
    totals = {
        "activities": sum(r[2] for r in rows),
        "mcd_amount": to_decimal_string(sum(r[3] for r in rows), decimals),
        "trade_volume_usdc": to_decimal_string(sum(r[4] for r in rows), USDC_DECIMALS),
    }
    owner = uid if uid is not None else f"project-{project}"
    return single(
        "mining_stats",
        owner,
        {"since": since.date().isoformat(), "days": items, "totals": totals},
    )


class GlobalDay(Shape):
    date: str
    activities: int
    miners: int
    mcd_amount: str
    trade_volume_usdc: str


class GlobalAttributes(Shape):
    since: str
    days: list[GlobalDay]
    totals: MiningTotals
    cached_seconds: int = Field(description="The figures may be this old")


@router.get(
    "/global-stats",
    response_model=One[GlobalAttributes],
    responses=_PUBLIC_PROBLEMS,
    dependencies=[Depends(PUBLIC)],
)
async def global_stats(
    session: SessionDep, redis: RedisDep, mints: DecimalsDep, days: Days = 30
) -> dict[str, Any]:
    """Public: confirmed mining activity of the whole ecosystem by UTC day."""
    key = f"mining:global-stats:{days}"
    try:
        cached = await redis.get(key)
    except RedisError:
        cached = None
    if cached is not None:
        attributes = json.loads(cached)
    else:
        decimals = mints.mcd  # the MCD mint's own
        since = _since(days)
        rows = (await session.execute(_GLOBAL, {"since": since})).all()
        attributes = {
            "since": since.date().isoformat(),
            "days": [
                {
                    "date": day.isoformat(),
                    "activities": count,
                    "miners": miners,
                    "mcd_amount": to_decimal_string(mcd, decimals),
                    "trade_volume_usdc": to_decimal_string(volume, USDC_DECIMALS),
                }
                for day, count, miners, mcd, volume in rows
            ],
            "totals": {
                "activities": sum(r[1] for r in rows),
                "mcd_amount": to_decimal_string(sum(r[3] for r in rows), decimals),
                "trade_volume_usdc": to_decimal_string(sum(r[4] for r in rows), USDC_DECIMALS),
            },
            "cached_seconds": GLOBAL_CACHE_SECONDS,
        }
        with contextlib.suppress(RedisError):
            await redis.set(key, json.dumps(attributes), ex=GLOBAL_CACHE_SECONDS)
    return single("mining_global_stats", "global", attributes)
