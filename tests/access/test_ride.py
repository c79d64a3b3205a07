"""A route's own Redis read rides in the round trip that counts its caller
(``api.ratelimit.rides``): the tech tree's bonus read is one round trip, and the count, the
revocation check and the route's answer are what they were with two."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

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
