"""The process's Redis client: one bounded pool that waits for a free connection.

redis-py's default pool raises "Too many connections" as soon as more than 100 calls are in
flight at once, which a burst of requests reaches; a blocking pool queues them instead and gives
up only after ``REDIS_POOL_TIMEOUT`` (the API then answers 503, see api.errors).
"""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis

from core.config import Settings

REDIS_POOL_TIMEOUT = 5.0


def create_redis(settings: Settings) -> Redis:
    pool = BlockingConnectionPool.from_url(
        settings.redis_url,
        max_connections=settings.redis_max_connections,
        timeout=REDIS_POOL_TIMEOUT,
    )
    return Redis(connection_pool=pool)
