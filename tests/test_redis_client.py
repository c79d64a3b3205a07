"""The process's Redis pool queues a burst instead of failing it (real Redis)."""

from __future__ import annotations

import asyncio

import pytest
from redis.exceptions import RedisError

from core import redis_client
from core.config import Settings
from core.redis_client import create_redis


async def test_more_calls_than_connections_wait_their_turn(settings: Settings) -> None:
    # redis-py's default pool raised "Too many connections" (a 500 in the API) as soon as more
    # calls than its size were in flight; ours queues them.
    redis = create_redis(settings.model_copy(update={"redis_max_connections": 5}))
    try:
        before = {c["id"] for c in await redis.client_list()}
        answers = await asyncio.gather(*(redis.ping() for _ in range(200)))
        assert answers == [True] * 200
        opened = {c["id"] for c in await redis.client_list()} - before
        assert len(opened) <= 4  # besides the one already open: the server's own count
    finally:
        await redis.aclose()


async def test_a_waiting_call_is_served_before_a_newcomer(settings: Settings) -> None:
    """First come, first served: a connection released while a call waits is that call's,
    not a newcomer's that asks before the waiting call resumes (redis-py's blocking pool gave
    it to the newcomer, so under a steady burst a call could wait until its timeout)."""
    redis = create_redis(settings.model_copy(update={"redis_max_connections": 1}))
    pool = redis.connection_pool
    try:
        held = await pool.get_connection()
        waiting = asyncio.create_task(pool.get_connection())
        await asyncio.sleep(0.05)
        assert not waiting.done()
        await pool.release(held)
        with pytest.raises(TimeoutError):  # the newcomer, in this task: it waits its turn
            async with asyncio.timeout(0.2):
                await pool.get_connection()
        assert waiting.done()
        await pool.release(waiting.result())
    finally:
        await redis.aclose()


async def test_no_free_connection_within_the_timeout_is_a_redis_error(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the API answers 503 to (api.errors): a call that waited ``REDIS_POOL_TIMEOUT``."""
    monkeypatch.setattr(redis_client, "REDIS_POOL_TIMEOUT", 0.1)
    redis = create_redis(settings.model_copy(update={"redis_max_connections": 1}))
    try:
        held = await redis.connection_pool.get_connection()
        with pytest.raises(RedisError, match="No connection available"):
            await redis.ping()
        await redis.connection_pool.release(held)
        assert await redis.ping() is True
    finally:
        await redis.aclose()


async def test_a_connection_taken_while_the_pool_was_locked_is_waited_for(
    settings: Settings,
) -> None:
    """Two calls find the last connection free while the pool's lock is held (as at a
    release that reconnects): the second gets it when the first gives it back, not a
    "Too many connections" error."""
    redis = create_redis(settings.model_copy(update={"redis_max_connections": 1}))
    pool = redis.connection_pool
    try:
        async with pool._lock:
            first = asyncio.create_task(pool.get_connection())
            second = asyncio.create_task(pool.get_connection())
            await asyncio.sleep(0.05)
        connection = await asyncio.wait_for(first, 1)
        await asyncio.sleep(0.05)
        assert not second.done()
        await pool.release(connection)
        await pool.release(await asyncio.wait_for(second, 1))
    finally:
        await redis.aclose()
