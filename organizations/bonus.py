"""Each user's mining bonus, cached in Redis, with the database as the fallback.

The bonus of a member is the sum of the bonuses of the lit units on their station's chain,
so the cache has two hashes that one script reads in one round trip:

- ``org:bonus:member``  uid -> station id (``0``: no station, bonus 0)
- ``org:bonus:station`` station id -> bonus percent of the station's chain

The daily job rebuilds both (``refresh_all``: members streamed by PostgreSQL's COPY into
Redis, each 128 KB block split and written by a Lua script, pipelined, written under temporary
keys and swapped in with
one MULTI/RENAME so readers never see a half-built cache; memberships changed meanwhile are
written again after the swap). A change of lit state rewrites only
the station hash; a membership change rewrites one member's field. A user the cache does not
know (new, or the cache was lost) is computed from the database and written back.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError
from sqlalchemy import bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import BigInteger, DateTime, String

from organizations.rules import BONUS_PERCENT, multiplier

log = logging.getLogger("mccgw.organizations")

MEMBER_KEY = "org:bonus:member"
STATION_KEY = "org:bonus:station"
# Bytes of COPY text per Lua call (about 10,000 members: Redis is busy ~10 ms per call).
COPY_CHUNK_BYTES = 128 * 1024

_PERCENT = " + ".join(
    f"CASE WHEN {alias}.lit THEN {BONUS_PERCENT[kind]} ELSE 0 END"
    for alias, kind in (("st", "station"), ("mx", "matrix"), ("se", "sector"), ("sy", "system"))
)
_CHAIN = """
    FROM org_units st
    LEFT JOIN org_units mx ON mx.id = st.parent_id
    LEFT JOIN org_units se ON se.id = mx.parent_id
    LEFT JOIN org_units sy ON sy.id = se.parent_id
"""
_STATIONS = text(f"SELECT st.id, {_PERCENT} AS percent {_CHAIN} WHERE st.unit_type = 'station'")
_SOME_STATIONS = text(
    f"SELECT st.id, {_PERCENT} AS percent {_CHAIN} WHERE st.id = ANY(:ids)"
).bindparams(bindparam("ids", type_=ARRAY(BigInteger())))
_USERS = text(
    f"""
SELECT m.user_uid, st.id, {_PERCENT} AS percent
FROM org_memberships m
JOIN org_units st ON st.id = m.station_id
LEFT JOIN org_units mx ON mx.id = st.parent_id
LEFT JOIN org_units se ON se.id = mx.parent_id
LEFT JOIN org_units sy ON sy.id = se.parent_id
WHERE m.left_at IS NULL AND m.user_uid = ANY(:uids)
"""
).bindparams(bindparam("uids", type_=ARRAY(String())))
# Uids COPY's text form writes verbatim (no tab, newline, return or backslash to escape).
_PLAIN_UID = (
    "strpos(user_uid, chr(9)) = 0 AND strpos(user_uid, chr(10)) = 0"
    " AND strpos(user_uid, chr(13)) = 0 AND strpos(user_uid, chr(92)) = 0"
)
_COPY_MEMBERS = (
    "COPY (SELECT user_uid, station_id FROM org_memberships"
    f" WHERE left_at IS NULL AND {_PLAIN_UID}) TO STDOUT"
)
_ODD_MEMBERS = text(
    f"SELECT user_uid, station_id FROM org_memberships WHERE left_at IS NULL AND NOT ({_PLAIN_UID})"
)
# KEYS: the hash; ARGV[1]: "uid<TAB>station<LF>" lines. Returns the number written.
_LOAD = r"""
local n = 0
for uid, station in string.gmatch(ARGV[1], '([^\t\n]+)\t([^\n]+)\n') do
  redis.call('HSET', KEYS[1], uid, station)
  n = n + 1
end
return n
"""
# Members whose membership changed since a moment, with their station now (0: none).
_TOUCHED = text(
    """
WITH touched AS (
    SELECT DISTINCT user_uid FROM org_memberships WHERE joined_at >= :since OR left_at >= :since
)
SELECT t.user_uid, coalesce(m.station_id, 0)
FROM touched t
LEFT JOIN org_memberships m ON m.user_uid = t.user_uid AND m.left_at IS NULL
"""
).bindparams(bindparam("since", type_=DateTime(timezone=True)))
# Margin for a membership change stamped before the rebuild began but committed after it.
_RACE_MARGIN = timedelta(minutes=5)

# KEYS: member hash, station hash; ARGV: uids. Per uid: the percent, or "?" when unknown.
_READ = """
local out = {}
for i, uid in ipairs(ARGV) do
  local s = redis.call('HGET', KEYS[1], uid)
  if not s then
    out[i] = '?'
  elseif s == '0' then
    out[i] = '0'
  else
    out[i] = redis.call('HGET', KEYS[2], s) or '?'
  end
end
return out
"""


_READ_SCRIPT: AsyncScript | None = None


def _read_script(redis: Redis) -> AsyncScript:
    """The read script, made once (its SHA-1 computed once); each call names its client."""
    global _READ_SCRIPT
    if _READ_SCRIPT is None:
        _READ_SCRIPT = redis.register_script(_READ)
    return _READ_SCRIPT


# The cache's read as another script can carry it (the API runs it inside the caller's
# rate-limit count, ``access.ratelimit.Ride``): the script, its keys; its args are the uids.
READ_SCRIPT = _READ
READ_KEYS = [MEMBER_KEY, STATION_KEY]


async def cached_percents(redis: Redis, uids: list[str]) -> dict[str, int | None]:
    """The cached bonus percent per uid (None: not in the cache, or Redis unavailable)."""
    if not uids:
        return {}
    try:
        values = await _read_script(redis)(keys=READ_KEYS, args=uids, client=redis)
    except RedisError as exc:
        log.warning("bonus cache unavailable: %r", exc)
        return dict.fromkeys(uids)
    return decoded_percents(uids, values)


def decoded_percents(uids: list[str], values: list[bytes | str]) -> dict[str, int | None]:
    """The read script's answer (``READ_SCRIPT``) per uid (None: not in the cache)."""
    out: dict[str, int | None] = {}
    for uid, raw in zip(uids, values, strict=True):
        value = raw.decode() if isinstance(raw, bytes) else str(raw)
        out[uid] = None if value == "?" else int(value)
    return out


async def percents_from_db(session: AsyncSession, uids: list[str]) -> dict[str, tuple[int, int]]:
    """uid -> (station id or 0, bonus percent), from the units' lit states."""
    found = {
        uid: (int(station), int(percent))
        for uid, station, percent in await session.execute(_USERS, {"uids": uids})
    }
    return {uid: found.get(uid, (0, 0)) for uid in uids}


async def station_percents(
    session: AsyncSession, station_ids: Iterable[int] | None = None
) -> dict[int, int]:
    if station_ids is None:
        rows = await session.execute(_STATIONS)
    else:
        rows = await session.execute(_SOME_STATIONS, {"ids": sorted(set(station_ids))})
    return {int(station): int(percent) for station, percent in rows}


async def percents(session: AsyncSession, redis: Redis, uids: list[str]) -> dict[str, int]:
    """Each user's bonus percent: from the cache, the misses from the database (and written
    back, best effort)."""
    unique = sorted(set(uids))
    cached = await cached_percents(redis, unique)
    misses = [uid for uid, value in cached.items() if value is None]
    out = {uid: value for uid, value in cached.items() if value is not None}
    if misses:
        computed = await percents_from_db(session, misses)
        out |= {uid: percent for uid, (_, percent) in computed.items()}
        try:
            async with redis.pipeline(transaction=False) as pipe:
                pipe.hset(MEMBER_KEY, mapping={uid: s for uid, (s, _) in computed.items()})
                stations = {s: p for s, p in computed.values() if s}
                if stations:
                    pipe.hset(STATION_KEY, mapping=stations)  # type: ignore[arg-type]
                await pipe.execute()
        except RedisError as exc:
            log.warning("could not write the bonus cache: %r", exc)
    return out


async def multipliers(session: AsyncSession, redis: Redis, uids: list[str]) -> dict[str, Decimal]:
    """``bonus_multiplier`` per user: 1 + bonus (1.0 without lit units)."""
    return {uid: multiplier(p) for uid, p in (await percents(session, redis, uids)).items()}


async def set_member(redis: Redis, uid: str, station_id: int | None) -> None:
    """After a membership change is committed: the user's station in the cache."""
    try:
        await redis.hset(MEMBER_KEY, uid, station_id or 0)
    except RedisError as exc:
        log.warning("could not update the bonus cache for %s: %r", uid, exc)
        with contextlib.suppress(RedisError):
            await redis.hdel(MEMBER_KEY, uid)


async def refresh_stations(
    session: AsyncSession, redis: Redis, station_ids: Iterable[int] | None = None
) -> int:
    """Rewrite the cached percent of these stations (all when None)."""
    values = await station_percents(session, station_ids)
    if values:
        await redis.hset(STATION_KEY, mapping=values)  # type: ignore[arg-type]
    return len(values)


@dataclass(frozen=True)
class RefreshOutcome:
    members: int
    stations: int


async def _copy_members(session: AsyncSession, redis: Redis, key: str) -> int:
    """Stream the open memberships from PostgreSQL's COPY straight into the hash ``key``:
    text blocks cut at line ends, each split and written by one Lua call inside Redis, so no
    row becomes a Python object. Returns the number of members written."""
    connection = await session.connection()
    raw = (await connection.get_raw_connection()).driver_connection
    assert raw is not None
    load = redis.register_script(_LOAD)
    written = 0
    async with (
        raw.cursor() as cursor,
        cursor.copy(_COPY_MEMBERS) as copy,
        redis.pipeline(transaction=False) as pipe,
    ):
        pending: list[bytes] = []
        size = 0
        async for block in copy:
            pending.append(bytes(block))
            size += len(block)
            if size < COPY_CHUNK_BYTES:
                continue
            chunk = b"".join(pending)
            cut = chunk.rfind(b"\n") + 1
            await load(keys=[key], args=[chunk[:cut]], client=pipe)
            pending, size = [chunk[cut:]], 0
            if len(pipe) >= 8:
                written += sum(await pipe.execute())
        rest = b"".join(pending)
        if rest:
            await load(keys=[key], args=[rest], client=pipe)
        if len(pipe):
            written += sum(await pipe.execute())
    # the few uids COPY's text form would escape (tab, newline, return, backslash)
    odd = {uid: int(station) for uid, station in await session.execute(_ODD_MEMBERS)}
    if odd:
        await redis.hset(key, mapping=odd)
    return written + len(odd)


async def refresh_all(session: AsyncSession, redis: Redis) -> RefreshOutcome:
    """Rebuild the whole cache from the database (members streamed, never all in memory)."""
    suffix = uuid.uuid4().hex[:8]
    member_tmp, station_tmp = f"{MEMBER_KEY}:new:{suffix}", f"{STATION_KEY}:new:{suffix}"
    began = await session.scalar(text("SELECT clock_timestamp()"))
    assert isinstance(began, datetime)
    stations = await station_percents(session)
    try:
        if stations:
            await redis.hset(station_tmp, mapping=stations)  # type: ignore[arg-type]
        members = await _copy_members(session, redis, member_tmp)
        async with redis.pipeline(transaction=True) as swap:
            for tmp, live, count in (
                (member_tmp, MEMBER_KEY, members),
                (station_tmp, STATION_KEY, len(stations)),
            ):
                if count:
                    swap.rename(tmp, live)
                else:
                    swap.delete(live)
            await swap.execute()
    finally:
        await redis.delete(member_tmp, station_tmp)
    # A membership changed while the snapshot was streamed: the admin route wrote it to the
    # live hash, which the swap just replaced; write it again from a fresh snapshot.
    await session.commit()  # read-only: ends the snapshot
    rows = await session.execute(_TOUCHED, {"since": began - _RACE_MARGIN})
    touched: dict[str, int] = {uid: int(station) for uid, station in rows}
    if touched:
        await redis.hset(MEMBER_KEY, mapping=touched)  # type: ignore[arg-type]
    return RefreshOutcome(members=members, stations=len(stations))
