"""The process's Redis pool queues a burst instead of failing it (real Redis)."""

from __future__ import annotations

import asyncio

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
