"""Per-program snapshots and a short read cache.

A program's whole account set is read with one `getProgramAccounts` and decoded once; every
view of that program answers from the snapshot until it is `ttl` seconds old (settings:
`views_refresh_seconds`, default 0.4 s = one slot). Concurrent requests that find it stale
wait on one refresh: a burst of N view calls costs at most one `getProgramAccounts` per program
per refresh. Token-side reads (balances, supply, holders) go through `TtlCache` with the same
freshness, also single-flight per key.
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
from views.rpc import ChainReader

log = logging.getLogger("mccgw.views")
T = TypeVar("T")
A = TypeVar("A", bound=AnchorAccount)


@dataclass
class Snapshot:
    program: str
    slot: int
    taken_at: float  # wall clock, unix seconds
    by_kind: dict[type[AnchorAccount], dict[str, AnchorAccount]]
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
        reader: ChainReader,
        program: str,
        kinds: tuple[type[AnchorAccount], ...],
        ttl: float,
    ) -> None:
        self.reader, self.program, self.kinds, self.ttl = reader, program, kinds, ttl
        self._disc = {k.discriminator(): k for k in kinds}
        self._snapshot: Snapshot | None = None
        self._at = 0.0  # monotonic time of the last refresh
        self._lock = asyncio.Lock()

    async def get(self) -> Snapshot:
        if self._snapshot is not None and time.monotonic() - self._at < self.ttl:
            return self._snapshot
        async with self._lock:
            if self._snapshot is not None and time.monotonic() - self._at < self.ttl:
                return self._snapshot  # another request refreshed while we waited
            self._snapshot = await self._load()
            self._at = time.monotonic()
            return self._snapshot

    async def _load(self) -> Snapshot:
        got = await self.reader.call(
            "getProgramAccounts",
            self.program,
            {"encoding": "base64", "withContext": True, "commitment": "confirmed"},
        )
        by_kind: dict[type[AnchorAccount], dict[str, AnchorAccount]] = {k: {} for k in self.kinds}
        for item in got["value"]:
            data = base64.b64decode(item["account"]["data"][0])
            kind = self._disc.get(data[:8])
            if kind is None:
                continue
            try:
                by_kind[kind][item["pubkey"]] = kind.decode(data)
            except LayoutError as exc:  # one corrupt account must not hide the others
                log.warning("skipping %s %s: %s", kind.NAME, item["pubkey"], exc)
        return Snapshot(self.program, int(got["context"]["slot"]), time.time(), by_kind)


class TtlCache:
    """Single-flight memo of RPC reads for `ttl` seconds, keyed by method and params."""

    def __init__(self, reader: ChainReader, ttl: float, max_entries: int = 10_000) -> None:
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
            value = await self.reader.call(method, *params)
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
