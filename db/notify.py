"""Per-process caches dropped the moment their row changes, fed by one LISTEN per process.

Triggers NOTIFY on ``mccgw_cache`` at commit, whatever process or code path made the change:
every ledger account and price (``uid:currency``, ``price``; migration 0012), every project row
(``project:<id>``; 0018) and every consent (``consent:<project_id>:<uid>``; 0022). One
``NotifyListener`` per process holds the LISTEN connection and evicts the named entry from
every cache attached to it: balances, project rows (authentication), a project's amount limits
(engine.limits) and consent grants (access.consent). While that connection is down nothing is
cached (every read goes to PostgreSQL), so a missed notification can never serve a stale
value. Entries also expire after ``max_age`` seconds as a second line of defence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

import psycopg

log = logging.getLogger("mccgw.db.notify")

CHANNEL = "mccgw_cache"
_MAX_ENTRIES = 100_000

T = TypeVar("T")


def project_key(project_id: int) -> str:
    """The key a change of the project's row names (the trigger's NOTIFY payload)."""
    return f"project:{project_id}"


def consent_key(project_id: int, uid: str) -> str:
    """The key a change of ``uid``'s consent to ``project_id`` names."""
    return f"consent:{project_id}:{uid}"


class NotifyCache(Generic[T]):
    """Values by key, kept only while a listener feeds this cache its evictions.

    With a ``dsn`` the cache owns a listener of its own (``start``/``stop``); without one it
    is attached to a shared ``NotifyListener`` (``listener.attach(cache)``)."""

    def __init__(self, dsn: str | None, max_age: float) -> None:
        self._max_age = max_age
        self._entries: dict[str, tuple[float, T]] = {}
        # Bumped by every clear: a value read before a clear is not stored after it.
        self._generation = 0
        # Keys being loaded -> [loads in flight, evictions of the key seen meanwhile]: a value
        # read before its own key's eviction is not stored after it. Evictions of other keys
        # do not matter (they arrive all the time on a busy ledger and would stop all caching).
        self._loading: dict[str, list[int]] = {}
        # How many live LISTEN connections feed this cache (nothing is kept while none does).
        self._feeds = 0
        self._own = NotifyListener(dsn) if dsn is not None else None
        if self._own is not None:
            self._own.attach(self)

    @property
    def listening(self) -> bool:
        return self._feeds > 0

    async def get(
        self, key: str, load: Callable[[], Awaitable[T]], max_age: float | None = None
    ) -> T:
        hit = self._entries.get(key)
        now = time.monotonic()
        limit = self._max_age if max_age is None else min(max_age, self._max_age)
        if hit is not None and self._feeds > 0 and now - hit[0] < limit:
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
        if self._feeds > 0 and generation == self._generation and loading[1] == seen:
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

    def _fed(self, delta: int) -> None:
        """A feeding connection came up (+1) or went down (-1): either way anything kept may
        have missed a notification."""
        self._feeds = max(self._feeds + delta, 0)
        self.clear()

    # -- a listener of its own (a cache built with a dsn) --------------------------------

    async def start(self, ready_timeout: float = 0.0) -> None:
        if self._own is not None:
            await self._own.start(ready_timeout)

    async def stop(self) -> None:
        if self._own is not None:
            await self._own.stop()


class NotifyListener:
    """One LISTEN connection on ``mccgw_cache`` evicting from every attached cache."""

    def __init__(self, dsn: str | None) -> None:
        self._dsn = dsn
        self._caches: list[NotifyCache[Any]] = []
        self._up = False
        self._task: asyncio.Task[None] | None = None

    @property
    def listening(self) -> bool:
        return self._up

    def attach(self, cache: NotifyCache[Any]) -> None:
        if any(c is cache for c in self._caches):
            return
        self._caches.append(cache)
        if self._up:
            cache._fed(+1)

    def detach(self, cache: NotifyCache[Any]) -> None:
        for i, c in enumerate(self._caches):
            if c is cache:
                del self._caches[i]
                if self._up:
                    cache._fed(-1)
                return

    def _set_up(self, up: bool) -> None:
        if up != self._up:
            self._up = up
            for cache in self._caches:
                cache._fed(+1 if up else -1)

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
        self._set_up(False)

    async def _listen(self, ready: asyncio.Event) -> None:
        assert self._dsn is not None
        backoff = 0.5
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._dsn, autocommit=True
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self._set_up(True)
                    ready.set()
                    backoff = 0.5
                    async for note in conn.notifies():
                        for cache in self._caches:
                            cache.evict(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cache listener lost its connection (%r); not caching", exc)
            finally:
                self._set_up(False)
            ready.set()  # start-up does not wait for a database that is down
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)
