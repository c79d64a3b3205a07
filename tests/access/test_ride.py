"""A route's own Redis read rides in the round trip that counts its caller
(``api.ratelimit.rides``): the tech tree's bonus read is one round trip, one script, and the
count, the revocation check and the route's answer are what they were with two."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

from access.ratelimit import RateLimiter, Ride
from access.revocation import REVOKED_JTI
from organizations.bonus import MEMBER_KEY, STATION_KEY
from tests.factories import World, clear_rate_windows


@pytest.fixture
def round_trips(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times the app's Redis client takes a connection (one per round trip)."""
    pool = app.state.redis.connection_pool
    taken = [0]
    get = pool.get_connection

    async def counted(*args: Any, **kwargs: Any) -> Any:
        taken[0] += 1
        return await get(*args, **kwargs)

    monkeypatch.setattr(pool, "get_connection", counted)
    yield taken


def _jti(token: str) -> str:
    payload = token.split(".")[1]
    return str(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["jti"])


async def test_the_bonus_read_is_one_round_trip_with_the_count(
    client: httpx.AsyncClient, world: World, redis: Redis, round_trips: list[int]
) -> None:
    user = await world.user()
    bearer = {"Authorization": f"Bearer {await world.token(user.uid, 'org:read')}"}
    await redis.hset(MEMBER_KEY, user.uid, "424242")
    await redis.hset(STATION_KEY, "424242", "30")
    try:
        first = await client.get("/v1/tech-tree/bonus", headers=bearer)  # loads the scripts
        assert first.status_code == 200, first.text
        remaining = int(first.headers["x-ratelimit-remaining"])
        round_trips[0] = 0
        r = await client.get("/v1/tech-tree/bonus", headers=bearer)
        assert r.status_code == 200, r.text
        assert r.json()["data"]["attributes"] == {"bonus_percent": 30, "bonus_multiplier": 1.3}
        assert round_trips[0] == 1  # was 2: the user's count, then the cache's read
        assert int(r.headers["x-ratelimit-remaining"]) == remaining - 1  # counted once
        # Not in the cache: the database answers (no station: 0) and the answer is cached.
        await redis.hdel(MEMBER_KEY, user.uid)
        r = await client.get("/v1/tech-tree/bonus", headers=bearer)
        assert r.json()["data"]["attributes"] == {"bonus_percent": 0, "bonus_multiplier": 1.0}
        assert await redis.hget(MEMBER_KEY, user.uid) == b"0"
    finally:
        await redis.hdel(MEMBER_KEY, user.uid)
        await redis.hdel(STATION_KEY, "424242")


async def test_a_lost_script_or_a_revoked_token_still_answers_as_before(
    client: httpx.AsyncClient, world: World, redis: Redis
) -> None:
    user = await world.user()
    token = await world.token(user.uid, "org:read")
    bearer = {"Authorization": f"Bearer {token}"}
    await redis.script_flush()  # Redis restarted: neither script is loaded
    r = await client.get("/v1/tech-tree/bonus", headers=bearer)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["bonus_percent"] == 0
    assert r.headers["x-ratelimit-limit"] == "100"
    await redis.set(REVOKED_JTI + _jti(token), "1", ex=60)
    r = await client.get("/v1/tech-tree/bonus", headers=bearer)
    assert r.status_code == 401
    assert r.json()["type"].endswith("/errors/unauthorized")
    await clear_rate_windows(redis)


async def _evalsha_calls(redis: Redis) -> int:
    stats: dict[str, Any] = await redis.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0))


async def test_the_bonus_read_is_one_script_with_the_count(
    client: httpx.AsyncClient, world: World, redis: Redis
) -> None:
    user = await world.user()
    bearer = {"Authorization": f"Bearer {await world.token(user.uid, 'org:read')}"}
    assert (await client.get("/v1/tech-tree/bonus", headers=bearer)).status_code == 200
    before = await _evalsha_calls(redis)
    r = await client.get("/v1/tech-tree/bonus", headers=bearer)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"] == {"bonus_percent": 0, "bonus_multiplier": 1.0}
    # Was 2 (the count's script and the read's, pipelined): the read runs inside the count's.
    assert await _evalsha_calls(redis) - before == 1
    await clear_rate_windows(redis)


async def test_a_read_that_fails_leaves_the_count_as_it_is(redis: Redis) -> None:
    limiter = RateLimiter(redis, prefix="rl-ride-test:")
    await redis.set("ride-test:string", "not a hash")
    try:
        args = ("u:ride-test", 5, "ride-test:no-revocation", "ip:ride-test", 5)
        # WRONGTYPE inside the read: the count stands, the route reads alone (ride.read False).
        broken = Ride("return redis.call('HGET', KEYS[1], ARGV[1])", ["ride-test:string"], ["x"])
        revoked, result = await limiter.hit_unless_revoked(*args, broken)
        assert (revoked, result.allowed, result.remaining) == (False, True, 4)
        assert not broken.read and broken.reply is None
        # A read that works gets its own KEYS and ARGV, and its reply back.
        good = Ride("return {KEYS[1], ARGV[1], #KEYS, #ARGV}", ["ride-test:k"], ["a"])
        revoked, result = await limiter.hit_unless_revoked(*args, good)
        assert (revoked, result.remaining) == (False, 3)
        assert good.read and good.reply == [b"ride-test:k", b"a", 1, 1]
        # Revoked: counted against the source, as without a ride; the read still answers.
        await redis.set("ride-test:revoked", "1", ex=60)
        after = Ride("return 7", [], [])
        revoked, result = await limiter.hit_unless_revoked(
            "u:ride-test", 5, "ride-test:revoked", "ip:ride-test", 5, after
        )
        assert revoked and result.remaining == 4 and after.reply == 7
    finally:
        await redis.delete("ride-test:string", "ride-test:revoked")
        await redis.delete("rl-ride-test:u:ride-test", "rl-ride-test:ip:ride-test")
