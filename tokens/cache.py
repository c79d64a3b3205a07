"""Per-process caches of balances and the price view, dropped the moment the data changes.

Every change of a ledger account, every administrator price and every oracle close fires a
PostgreSQL NOTIFY on ``mccgw_cache`` at commit (triggers of migration 0012), whatever process
or code path made it. One LISTEN connection per API process evicts the entry it names
(``uid:currency``, or ``price``). While that connection is down nothing is cached (every read
goes to PostgreSQL), so a missed notification can never serve a stale balance. Entries also
expire after ``max_age`` seconds as a second line of defence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

import psycopg

log = logging.getLogger("mccgw.tokens.cache")

CHANNEL = "mccgw_cache"
PRICE_KEY = "price"
_MAX_ENTRIES = 100_000

T = TypeVar("T")


class NotifyCache(Generic[T]):
    def __init__(self, dsn: str | None, max_age: float) -> None:
        self._dsn = dsn
        self._max_age = max_age
        self._entries: dict[str, tuple[float, T]] = {}
        # Bumped by every clear: a value read before a clear is not stored after it.
        self._generation = 0
        # Keys being loaded -> [loads in flight, evictions of the key seen meanwhile]: a value
        # read before its own key's eviction is not stored after it. Evictions of other keys
        # do not matter (they arrive all the time on a busy ledger and would stop all caching).
        self._loading: dict[str, list[int]] = {}
        self._listening = False
        self._task: asyncio.Task[None] | None = None

    @property
    def listening(self) -> bool:
        return self._listening

    async def get(
        self, key: str, load: Callable[[], Awaitable[T]], max_age: float | None = None
    ) -> T:
        hit = self._entries.get(key)
        now = time.monotonic()
        limit = self._max_age if max_age is None else min(max_age, self._max_age)
        if hit is not None and self._listening and now - hit[0] < limit:
            return hit[1]
        generation = self._generation
        loading = self._loading.setdefault(key, [0, 0])
        loading[0] += 1
        seen = loading[1]
        try:
            value = await load()
        finally:
            loading[0] -= 1
            if loading[0] == 0:
                del self._loading[key]
        if self._listening and generation == self._generation and loading[1] == seen:
            if len(self._entries) >= _MAX_ENTRIES:
                self._entries.clear()
            self._entries[key] = (now, value)
        return value

    def evict(self, key: str) -> None:
        loading = self._loading.get(key)
        if loading is not None:
            loading[1] += 1
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._generation += 1
        self._entries.clear()

    # -- the listener ------------------------------------------------------------------

    async def start(self, ready_timeout: float = 0.0) -> None:
        """Start listening in the background (nothing is cached until it listens); wait up to
        ``ready_timeout`` seconds for it."""
        if self._dsn is None or self._task is not None:
            return
        ready = asyncio.Event()
        self._task = asyncio.create_task(self._listen(ready), name="mccgw-cache-listener")
        if ready_timeout > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ready.wait(), ready_timeout)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        self._listening = False

    async def _listen(self, ready: asyncio.Event) -> None:
        assert self._dsn is not None
        backoff = 0.5
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._dsn, autocommit=True
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.clear()  # anything cached before may have missed a notification
                    self._listening = True
                    ready.set()
                    backoff = 0.5
                    async for note in conn.notifies():
                        self.evict(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cache listener lost its connection (%r); not caching", exc)
            finally:
                self._listening = False
                self.clear()
            ready.set()  # start-up does not wait for a database that is down
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)


def cache_for(app_state: Any) -> NotifyCache[Any]:
    cache: NotifyCache[Any] = app_state.token_cache
    return cache
