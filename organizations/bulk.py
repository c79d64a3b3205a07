"""Set-based population of members and their confirmed mining input, for the demo seed, the
benchmark and the tests: a few INSERT ... SELECT over generate_series, whatever the count
(flush only)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal

from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import Date, DateTime, Numeric

_USERS = text(
    """
INSERT INTO users (uid, username, email, role, display_name, api_keys_configured)
SELECT :prefix || i, :prefix || i, :prefix || i || '@members.local', 'unit_member',
       :prefix || i, false
FROM generate_series(CAST(:first AS bigint), CAST(:last AS bigint)) AS i
ON CONFLICT DO NOTHING
"""
)
_MEMBERSHIPS = text(
    """
INSERT INTO org_memberships (user_uid, station_id, joined_at, left_at)
SELECT :prefix || i, :station, :joined, :left
FROM generate_series(CAST(:first AS bigint), CAST(:last AS bigint)) AS i
"""
).bindparams(
    bindparam("joined", type_=DateTime(timezone=True)),
    bindparam("left", type_=DateTime(timezone=True)),
)
_INPUTS = text(
    """
INSERT INTO mining_activities
    (id, project_id, user_uid, activity_type, activity_data, proof, canonical,
     idempotency_key, status, mcd_amount, reward_day, workflow_id, history, confirmed_at)
SELECT 'act_' || md5(:prefix || i || ':' || CAST(:day AS text) || ':' || :tag),
       CAST(:project AS bigint), :prefix || i,
       'trade', jsonb_build_object('trade_volume_usdc', CAST(:volume AS numeric)),
       '{}'::jsonb, '', 'bulk-' || md5(:prefix || i || ':' || CAST(:day AS text) || ':' || :tag),
       'confirmed', 0, :day, 'bulk', '[]'::jsonb, :at
FROM generate_series(CAST(:first AS bigint), CAST(:last AS bigint)) AS i
"""
).bindparams(
    bindparam("day", type_=Date()),
    bindparam("at", type_=DateTime(timezone=True)),
    bindparam("volume", type_=Numeric()),
)


async def add_members(
    session: AsyncSession,
    station_id: int,
    prefix: str,
    first: int,
    last: int,
    joined_at: datetime,
    left_at: datetime | None = None,
) -> None:
    """Users ``<prefix><first..last>`` (created when new), members of the station."""
    params = {"prefix": prefix, "first": first, "last": last}
    await session.execute(_USERS, params)
    await session.execute(
        _MEMBERSHIPS, params | {"station": station_id, "joined": joined_at, "left": left_at}
    )


async def add_inputs(
    session: AsyncSession,
    prefix: str,
    first: int,
    last: int,
    day: date,
    volume_usdc: Decimal,
    *,
    project_id: int = 1000,
    tag: str = "0",
    at: datetime | None = None,
) -> None:
    """One confirmed submission per user that day with ``trade_volume_usdc`` = volume."""
    await session.execute(
        _INPUTS,
        {
            "prefix": prefix,
            "first": first,
            "last": last,
            "day": day,
            "tag": tag,
            "project": project_id,
            "volume": volume_usdc,
            "at": at or datetime.combine(day, time(12), tzinfo=UTC),
        },
    )
