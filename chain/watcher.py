"""One finality watcher per process.

Every write being awaited in this process is checked by a single loop: one ``check_many`` per
tick (one DB query and one getSignatureStatuses call per 256 signatures) instead of a DB read
and an RPC call per write per poll. Writes that have not landed are still driven one by one by
``check_many`` (re-send while valid, re-sign after expiry), so exactly-once is unchanged.

When the next tick comes (issue 43, proposal 5): every ``interval`` (0.2 s), except while an
awaited write has landed and is expected to be finalized sooner. A landed write's depth
(``confirmations``: slots above its landing slot) and the slot time the watcher measured from
the depths it saw grow tell when it should reach ``FINALITY_DEPTH``: the watcher wakes then,
and once per slot for a few slots after (the estimate's error), never faster otherwise. With
nothing awaited there is no loop at all (an idle worker never polls).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from chain.errors import ChainTimeout, ChainUnavailable, UnknownChainWrite

if TYPE_CHECKING:
    from chain.write_record import ChainWrite
    from chain.writes import ChainWrites

log = logging.getLogger(__name__)

# A landed slot is finalized about 31-32 slots later (the votes' lockout; Surfpool and the
# devchain say 31): the watcher aims at the first and polls once per slot after.
FINALITY_DEPTH = 31
# How many slots past its expected finality a write is still polled once per slot.
LATE_SLOTS = 4
# Slot times outside these bounds are a measurement's noise (a stalled tick), not the chain.
MIN_SLOT, MAX_SLOT = 0.005, 2.0


class FinalityWatcher:
    def __init__(self, gateway: ChainWrites, interval: float) -> None:
        self._gateway = gateway
        self._interval = interval
        self._waiters: dict[str, list[asyncio.Future[ChainWrite]]] = {}
        self._task: asyncio.Task[None] | None = None
        # op_key -> (its depth, when seen), of the landed writes being awaited.
        self._seen: dict[str, tuple[int, float]] = {}
        self._slot: float | None = None  # the slot time, measured from depths seen to grow

    async def wait(self, op_key: str, timeout: float) -> ChainWrite:  # noqa: ASYNC109
        """The write once final; ChainTimeout (retryable) if it is not within ``timeout``."""
        future: asyncio.Future[ChainWrite] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(op_key, []).append(future)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="chain-finality-watcher")
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            raise ChainTimeout(f"{op_key!r} not final after {timeout}s") from None
        finally:
            waiting = self._waiters.get(op_key, [])
            if future in waiting:
                waiting.remove(future)
            if not waiting:
                self._waiters.pop(op_key, None)

    async def _run(self) -> None:
        while self._waiters:
            keys = list(self._waiters)
            try:
                writes = await self._gateway.check_many(keys, drive=True)
            except ChainUnavailable as exc:  # waiters time out into a retry if it lasts
                log.info("finality watcher: chain unavailable (%s); still waiting", exc)
                writes = None
            except Exception as exc:
                log.exception("finality watcher: check failed")
                self._fail(keys, exc)
                writes = None
            if writes is not None:
                for key in keys:
                    write = writes.get(key)
                    if write is None:
                        self._fail([key], UnknownChainWrite(key))
                    elif write.final:
                        self._resolve(key, write)
                self._note(writes, time.monotonic())
            await asyncio.sleep(self._next_tick(time.monotonic()))

    def _note(self, writes: Mapping[str, ChainWrite], now: float) -> None:
        """Each awaited landed write's depth, and the slot time its growth since the last
        tick shows (a moving average)."""
        seen: dict[str, tuple[int, float]] = {}
        for key in self._waiters:
            write = writes.get(key)
            if write is None or write.confirmations is None:
                continue
            seen[key] = (write.confirmations, now)
            before = self._seen.get(key)
            if before is not None and write.confirmations > before[0]:
                slot = (now - before[1]) / (write.confirmations - before[0])
                if MIN_SLOT <= slot <= MAX_SLOT:
                    self._slot = slot if self._slot is None else 0.7 * self._slot + 0.3 * slot
        self._seen = seen

    def _next_tick(self, now: float) -> float:
        """Seconds to the next tick: the interval, or sooner when an awaited landed write
        should be finalized sooner (then once a slot, for at most ``LATE_SLOTS`` slots)."""
        slot = self._slot
        if slot is None or not self._seen:
            return self._interval
        wait = self._interval
        for depth, seen_at in self._seen.values():
            due = seen_at + (FINALITY_DEPTH - depth) * slot - now  # negative once late
            if due > 0:  # wake when it should be final
                wait = min(wait, max(due, MIN_SLOT))
            elif due > -LATE_SLOTS * slot:  # late: once a slot (or an interval, if shorter)
                wait = min(wait, slot)
        return wait

    def _resolve(self, key: str, write: ChainWrite) -> None:
        for future in self._waiters.pop(key, []):
            if not future.done():
                future.set_result(write)

    def _fail(self, keys: list[str], exc: BaseException) -> None:
        for key in keys:
            for future in self._waiters.pop(key, []):
                if not future.done():
                    future.set_exception(exc)
