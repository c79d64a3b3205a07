"""One finality watcher per process.

Every write being awaited in this process is checked by a single loop: one ``check_many`` per
tick (one DB query and one getSignatureStatuses call per 256 signatures) instead of a DB read
and an RPC call per write per poll. Writes that have not landed are still driven one by one by
``check_many`` (re-send while valid, re-sign after expiry), so exactly-once is unchanged.

When the next tick comes (issue 43, proposal 5; pass four): a landed write's depth
(``confirmations``: slots above its landing slot) and the slot time the watcher measured from
the depths it saw grow tell when it should reach ``FINALITY_DEPTH``: the watcher wakes then,
and once per slot for a few slots after (the estimate's error). A write just sent lands in the
slot it was sent in, so with the slot time known its first look is at its expected finality
(``FINALITY_DEPTH + 1`` slots after the send), not a tick after the send that could only see
it unlanded; with the slot time not known yet, a first look an ``interval`` after the send
measures it (the depth seen over the time since the send). A write looked at and not landed is
looked at every ``interval`` (0.2 s); no awaited write goes longer than ``patience`` (the
re-send interval, 2 s) without a look, which is also when a write not landed is re-sent. Every
tick looks at every awaited write (one status call), so under load the looks are shared. With
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
    def __init__(self, gateway: ChainWrites, interval: float, *, patience: float = 0.0) -> None:
        self._gateway = gateway
        self._interval = interval
        # The longest an awaited write goes without a look (a landed one between its looks).
        self._patience = max(interval, patience)
        # op_key -> when its first look is due (monotonic), until it is looked at.
        self._first: dict[str, float] = {}
        # op_key -> when it was sent, of writes awaited as soon as sent (the first slot time).
        self._sent: dict[str, float] = {}
        self._waiters: dict[str, list[asyncio.Future[ChainWrite]]] = {}
        self._task: asyncio.Task[None] | None = None
        # op_key -> (its depth, when seen), of the landed writes being awaited.
        self._seen: dict[str, tuple[int, float]] = {}
        self._slot: float | None = None  # the slot time, measured from depths seen to grow
        # When the loop's next tick is (monotonic), and what wakes it sooner: a write that
        # joins with an earlier first look (the loop may sleep up to ``patience``).
        self._until = 0.0
        self._nudge: asyncio.Future[None] | None = None

    async def wait(
        self,
        op_key: str,
        timeout: float,  # noqa: ASYNC109
        *,
        just_sent: bool = False,
    ) -> ChainWrite:
        """The write once final; ChainTimeout (retryable) if it is not within ``timeout``.
        ``just_sent``: the write was sent a moment ago (its first look waits for its expected
        finality)."""
        future: asyncio.Future[ChainWrite] = asyncio.get_running_loop().create_future()
        if op_key not in self._waiters:
            now = time.monotonic()
            first = self._first[op_key] = now + self._first_look(just_sent)
            if just_sent:
                self._sent[op_key] = now
            if first < self._until:
                self._until = first
                if self._nudge is not None and not self._nudge.done():
                    self._nudge.set_result(None)
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
                self._forget(op_key)

    def _first_look(self, just_sent: bool) -> float:
        """Seconds from now to a new write's first look."""
        if just_sent and self._slot is not None:
            return min(self._patience, (FINALITY_DEPTH + 1) * self._slot)
        return self._interval

    def _forget(self, op_key: str) -> None:
        self._waiters.pop(op_key, None)
        self._first.pop(op_key, None)
        self._sent.pop(op_key, None)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiters:
            now = time.monotonic()
            self._until = now + self._next_tick(now)
            while (left := self._until - time.monotonic()) > 0:  # ``wait`` may bring it closer
                self._nudge = loop.create_future()
                await asyncio.wait((self._nudge,), timeout=left)
                self._nudge = None
            self._until = 0.0
            keys = list(self._waiters)
            if not keys:
                break
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
            for key in keys:
                self._first.pop(key, None)
                self._sent.pop(key, None)

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
            sent = self._sent.pop(key, None)
            if before is None and sent is not None and self._slot is None:
                # The first slot time: it landed in the slot it was sent in, half a slot in.
                slot = (now - sent) / (write.confirmations + 0.5)
                if MIN_SLOT <= slot <= MAX_SLOT:
                    self._slot = slot
            elif before is not None and write.confirmations > before[0]:
                slot = (now - before[1]) / (write.confirmations - before[0])
                if MIN_SLOT <= slot <= MAX_SLOT:
                    self._slot = slot if self._slot is None else 0.7 * self._slot + 0.3 * slot
        self._seen = seen

    def _next_tick(self, now: float) -> float:
        """Seconds to the next tick: the soonest of the awaited writes' next looks. A new
        write's first look (``_first_look``); a landed write's when it should be final, then
        once a slot for at most ``LATE_SLOTS`` slots, then every interval; a write looked at
        and not landed, every interval; none later than ``patience``."""
        slot = self._slot
        wait = self._patience
        for key in self._waiters:
            first = self._first.get(key)
            seen = self._seen.get(key)
            if first is not None:
                wait = min(wait, first - now)
            elif seen is None or slot is None:
                wait = min(wait, self._interval)
            else:
                depth, seen_at = seen
                due = seen_at + (FINALITY_DEPTH - depth) * slot - now  # negative once late
                if due > 0:  # wake when it should be final
                    wait = min(wait, due)
                elif due > -LATE_SLOTS * slot:  # late: once a slot (or an interval, if shorter)
                    wait = min(wait, slot, self._interval)
                else:
                    wait = min(wait, self._interval)
        return max(wait, MIN_SLOT)

    def _resolve(self, key: str, write: ChainWrite) -> None:
        futures = self._waiters.get(key, [])
        self._forget(key)
        for future in futures:
            if not future.done():
                future.set_result(write)

    def _fail(self, keys: list[str], exc: BaseException) -> None:
        for key in keys:
            futures = self._waiters.get(key, [])
            self._forget(key)
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
