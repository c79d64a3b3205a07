"""Per-program snapshots and a short read cache.

A program's whole account set is read with one `getProgramAccounts` and decoded once; every
view of that program answers from the snapshot. Once it is older than the refresh interval
(settings: `views_refresh_seconds`, default 0.4 s = one slot; for a program so large that one
refresh costs more than a quarter of that, 4 x the last refresh's duration, so re-reading never
takes more than a quarter of the process) the next request starts one refresh in the
background and is answered from the current snapshot (stale-while-revalidate), so a large
program's re-read never sits in a request's path; a request waits only for the first load or
when the snapshot is older than `max_stale` (10 x ttl, at least 5 s), e.g. after the chain was
unreachable. A burst of N view calls costs at most one `getProgramAccounts` per program per
refresh. Token-side reads (balances, supply, holders) go through `TtlCache` with the same
freshness, single-flight per key.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from chain.ecosystem.borsh import AnchorAccount, LayoutError
from chain.rpc import ChainRpc

log = logging.getLogger("mccgw.views")
T = TypeVar("T")
A = TypeVar("A", bound=AnchorAccount)


@dataclass
class Snapshot:
    program: str
    slot: int
    taken_at: float  # wall clock, unix seconds
    by_kind: dict[type[AnchorAccount], dict[str, AnchorAccount]]
    raw: dict[str, str] = field(default_factory=dict)  # address -> base64 data as read
    _indexes: dict[str, Any] = field(default_factory=dict)

    def all(self, kind: type[A]) -> dict[str, A]:
        return self.by_kind.get(kind, {})  # type: ignore[return-value]

    def get(self, kind: type[A], address: str) -> A | None:
        return self.all(kind).get(address)

    def index(self, name: str, build: Callable[[Snapshot], T]) -> T:
        """A derived lookup built once per snapshot (e.g. territory NFTs by mint)."""
        if name not in self._indexes:
            self._indexes[name] = build(self)
        value: T = self._indexes[name]
        return value


class ProgramCache:
    def __init__(
        self,
        reader: ChainRpc,
        program: str,
        kinds: tuple[type[AnchorAccount], ...],
        ttl: float,
    ) -> None:
        self.reader, self.program, self.kinds, self.ttl = reader, program, kinds, ttl
        self._disc = {k.discriminator(): k for k in kinds}
        self.max_stale = max(5.0, 10 * ttl)
        self.cost = 0.0  # seconds the last refresh took (RPC + decode)
        self._snapshot: Snapshot | None = None
        self._at = 0.0  # monotonic time the current snapshot's read started
        self._lock = asyncio.Lock()
        self._background: asyncio.Task[None] | None = None
        self._generation = 0  # counts completed refreshes

    @property
    def interval(self) -> float:
        return max(self.ttl, 4 * self.cost)

    async def get(self) -> Snapshot:
        snap = self._snapshot
        if snap is not None:
            age = time.monotonic() - self._at
            if age < self.interval:
                return snap
            if age < max(self.max_stale, 3 * self.interval):
                if self._background is None and not self._lock.locked():
                    self._background = asyncio.create_task(self._refresh_in_background())
                return snap
        return await self._refresh()

    async def _refresh(self) -> Snapshot:
        seen = self._generation
        async with self._lock:
            snap = self._snapshot
            if snap is not None and self._generation != seen:
                return snap  # a refresh completed while we waited: that one serves us too
            started = time.monotonic()
            snap = await self._load()
            self._snapshot, self._at = snap, started
            self.cost = time.monotonic() - started
            self._generation += 1
            return snap

    async def _refresh_in_background(self) -> None:
        try:
            await self._refresh()
        except Exception as exc:  # the next request past max_stale surfaces it (503)
            log.warning("background refresh of %s failed: %r", self.program, exc)
        finally:
            self._background = None

    async def _load(self) -> Snapshot:
        raw = await self.reader.call_raw(
            "getProgramAccounts",
            [self.program, {"encoding": "base64", "withContext": True, "commitment": "confirmed"}],
        )
        # Parsing and decoding thousands of accounts would stall every other request: do it
        # in a thread, and decode only the accounts whose bytes changed since the last read.
        return await asyncio.to_thread(self._decode, raw, self._snapshot)

    def _decode(self, raw: bytes, prev: Snapshot | None) -> Snapshot:
        got = ChainRpc.decode("getProgramAccounts", raw)
        by_kind: dict[type[AnchorAccount], dict[str, AnchorAccount]] = {k: {} for k in self.kinds}
        seen: dict[str, str] = {}
        old_raw = prev.raw if prev is not None else {}
        old: dict[str, tuple[type[AnchorAccount], AnchorAccount]] = {}
        if prev is not None:
            for kind, accounts in prev.by_kind.items():
                for address, acc in accounts.items():
                    old[address] = (kind, acc)
        for item in got["value"]:
            address, b64 = item["pubkey"], item["account"]["data"][0]
            if old_raw.get(address) == b64 and address in old:
                kind, acc = old[address]
                by_kind[kind][address] = acc
                seen[address] = b64
                continue
            data = base64.b64decode(b64)
            found = self._disc.get(data[:8])
            if found is None:
                continue
            try:
                by_kind[found][address] = found.decode(data)
                seen[address] = b64
            except LayoutError as exc:  # one corrupt account must not hide the others
                log.warning("skipping %s %s: %s", found.NAME, address, exc)
        slot = int(got["context"]["slot"])
        return Snapshot(self.program, slot, time.time(), by_kind, seen)


class TtlCache:
    """Single-flight memo of RPC reads for `ttl` seconds, keyed by method and params."""

    def __init__(self, reader: ChainRpc, ttl: float, max_entries: int = 10_000) -> None:
        self.reader, self.ttl, self.max_entries = reader, ttl, max_entries
        self._values: dict[str, tuple[float, Any]] = {}
        self._inflight: dict[str, asyncio.Future[Any]] = {}

    async def call(self, method: str, *params: Any) -> Any:
        key = json.dumps([method, params], sort_keys=True)
        hit = self._values.get(key)
        now = time.monotonic()
        if hit is not None and now - hit[0] < self.ttl:
            return hit[1]
        if (pending := self._inflight.get(key)) is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            value = await self.reader.call(method, params)
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            self._inflight.pop(key, None)
        fut.set_result(value)
        if len(self._values) >= self.max_entries:
            self._values.clear()
        self._values[key] = (time.monotonic(), value)
        return value

    async def forever(self, key: str, load: Callable[[], Awaitable[T]]) -> T:
        """Values that never change (a mint's decimals)."""
        hit = self._values.get("forever:" + key)
        if hit is not None:
            value: T = hit[1]
            return value
        value = await load()
        self._values["forever:" + key] = (float("inf"), value)
        return value
