"""The token caches: the keys of the NOTIFY-evicted one, and ``Memo`` for what expires by time.

Balances are cached per ``uid:currency`` and the price view under ``price``, in a
``db.notify.NotifyCache`` that the ledger's and the price's triggers (migration 0012) evict at
commit. The public token statistics and the market pool's reading are kept for a while instead
(``Memo``): public, so each is loaded at most once per expiry in a process, however many
callers arrive together (issue 38, L2)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

PRICE_KEY = "price"

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class Memo(Generic[K, T]):
    """Values by key, each kept ``seconds`` after it was loaded, and loaded once per expiry:
    the first caller after expiry starts the load, the callers arriving meanwhile await that
    same load (single-flight). The load runs as a task of its own, so a caller that goes away
    does not cancel it for the others (it must therefore open what it uses itself, e.g. a
    database session). A failed load fails its waiters and is not kept."""

    def __init__(self, seconds: float, max_entries: int = 1_000) -> None:
        self.seconds = seconds
        self._max_entries = max_entries
        self._values: dict[K, tuple[float, T]] = {}
        self._loads: dict[K, asyncio.Task[T]] = {}

    async def get(self, key: K, load: Callable[[], Awaitable[T]]) -> T:
        hit = self._values.get(key)
        if hit is not None and time.monotonic() - hit[0] < self.seconds:
            return hit[1]
        task = self._loads.get(key)
        if task is None:
            task = self._loads[key] = asyncio.create_task(self._load(key, load))
        return await asyncio.shield(task)

    async def _load(self, key: K, load: Callable[[], Awaitable[T]]) -> T:
        try:
            value = await load()
        finally:
            del self._loads[key]
        if len(self._values) >= self._max_entries:
            self._values.clear()
        self._values[key] = (time.monotonic(), value)
        return value
