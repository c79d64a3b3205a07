"""The process's Redis client: one bounded pool that waits for a free connection only when
every connection is in use.

redis-py's default pool raises "Too many connections" as soon as more than 100 calls are in
flight at once, which a burst of requests reaches; this pool queues them instead and gives up
only after ``REDIS_POOL_TIMEOUT`` (the API then answers 503, see api.errors).

redis-py's own ``BlockingConnectionPool`` queues them too, but pays for it on every call, a
free connection or not: an ``asyncio.Condition`` acquired, a timeout armed, the condition
notified at each release (3.7-7 % of an authenticated read's CPU, docs/performance.md). Here a
call takes the plain pool's path while a connection is free, and only a call that finds none
waits, first come first served, for one to be handed over at a release.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MaxConnectionsError

from core.config import Settings

REDIS_POOL_TIMEOUT = 5.0


class QueueingConnectionPool(ConnectionPool):
    """A plain bounded pool; a call that finds every connection in use waits up to ``timeout``
    for one (then ``ConnectionError("No connection available.")``, as redis-py's blocking
    pool raises)."""

    def __init__(self, *, timeout: float = REDIS_POOL_TIMEOUT, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.timeout = timeout
        self._waiters: deque[asyncio.Future[None]] = deque()
        # Connections a release handed to a woken waiter that has not taken it yet: no
        # newcomer may take them first.
        self._handed = 0

    def _free(self) -> int:
        return self.max_connections - len(self._in_use_connections) - self._handed

    def _hand_over(self) -> None:
        while self._waiters and self._free() > 0:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                self._handed += 1

    async def get_connection(
        self, command_name: Any = None, *keys: Any, **options: Any
    ) -> AbstractConnection:
        if not self._waiters and self._free() > 0:
            # The plain pool's path; a connection can still be gone when it gets the pool's
            # lock (held across a reconnect at a release): then this call waits its turn.
            with contextlib.suppress(MaxConnectionsError):
                return await super().get_connection()
        deadline = asyncio.get_running_loop().time() + self.timeout
        while True:
            await self._turn(deadline)
            try:
                return await super().get_connection()
            except MaxConnectionsError:
                continue  # taken meanwhile, as above: wait again
            finally:
                self._handed -= 1
                self._hand_over()

    async def _turn(self, deadline: float) -> None:
        """Wait until a release hands this call a connection (``_handed`` counts it)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._hand_over()  # at once when a connection is free and no one is ahead
        try:
            async with asyncio.timeout_at(deadline):
                await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self._handed -= 1  # handed over, but not taken: to the next in line
                self._hand_over()
            else:
                waiter.cancel()
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            if isinstance(exc, TimeoutError):
                raise RedisConnectionError("No connection available.") from None
            raise

    async def release(self, connection: AbstractConnection) -> None:
        await super().release(connection)
        if self._waiters:
            self._hand_over()


def create_redis(settings: Settings) -> Redis:
    pool = QueueingConnectionPool.from_url(
        settings.redis_url,
        max_connections=settings.redis_max_connections,
        timeout=REDIS_POOL_TIMEOUT,
    )
    return Redis(connection_pool=pool)
