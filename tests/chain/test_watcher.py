"""The finality watcher's cadence (issue 43, proposal 5): it wakes when a landed write should
be finalized, not at the next 0.2 s tick after, and polls faster only for a few slots then."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from chain.watcher import FINALITY_DEPTH, FinalityWatcher
from chain.write_record import ChainWrite
from chain.writes import ChainWrites

SLOT = 0.02  # the devchain's slot time in the benches


def _write(status: str, confirmations: int | None) -> ChainWrite:
    return ChainWrite(
        op_key="w", kind="generic", status=status, signature="s", attempt=1,
        previous_signatures=(), blockhash="h", last_valid_block_height=100,
        commitment="finalized", confirmation_status=None, slot=None, block_height=None,
        err=None, send_count=1, confirmations=confirmations,
    )  # fmt: skip


@dataclass
class Chain:
    """One write landed at ``start``, its depth growing a slot every ``SLOT``; finalized at
    ``final_at`` slots (never when None). Counts the watcher's ticks."""

    final_at: int | None = FINALITY_DEPTH
    start: float = field(default_factory=time.monotonic)
    ticks: int = 0
    finalized: float | None = None

    async def check_many(self, keys: Sequence[str], *, drive: bool = True) -> dict[str, Any]:
        self.ticks += 1
        depth = int((time.monotonic() - self.start) / SLOT)
        if self.final_at is not None and depth >= self.final_at:
            return {"w": _write("succeeded", None)}
        return {"w": _write("landed", depth)}

    @property
    def final_since(self) -> float:
        """When the chain finalized the write (monotonic)."""
        assert self.final_at is not None
        return self.start + self.final_at * SLOT


async def test_a_landed_write_is_seen_final_within_a_slot_or_two_of_its_finality() -> None:
    chain = Chain()
    watcher = FinalityWatcher(cast(ChainWrites, chain), 0.2)
    write = await watcher.wait("w", timeout=5)
    late = time.monotonic() - chain.final_since
    assert write.status == "succeeded"
    # At 0.2 s ticks the finality (0.62 s after landing) is seen at the 0.8 s tick: 0.18 s late.
    assert late < 0.09, late
    assert chain.ticks <= 6, chain.ticks  # not a tick per slot: 0, 0.2, 0.4, then near 0.62


async def test_a_write_late_to_finalize_is_polled_at_the_interval_again() -> None:
    """Past its expected finality by more than a few slots, it is polled every interval (the
    estimate was wrong; polling every slot would cost a read and an RPC call per slot)."""
    chain = Chain(final_at=None)
    watcher = FinalityWatcher(cast(ChainWrites, chain), 0.2)
    waiting = asyncio.create_task(watcher.wait("w", timeout=1.6))
    await asyncio.sleep(1.5)
    # ~0.62 s of 0.2 s ticks (4), LATE_SLOTS + 1 ticks a slot apart, then ~0.8 s at 0.2 s (4).
    assert chain.ticks <= 14, chain.ticks
    waiting.cancel()


async def test_without_a_depth_the_watcher_keeps_its_interval() -> None:
    """A write not landed (no depth) is polled every interval, as before."""

    class NotLanded(Chain):
        async def check_many(self, keys: Sequence[str], *, drive: bool = True) -> dict[str, Any]:
            self.ticks += 1
            return {"w": _write("sent", None)}

    chain = NotLanded()
    watcher = FinalityWatcher(cast(ChainWrites, chain), 0.2)
    waiting = asyncio.create_task(watcher.wait("w", timeout=1.0))
    await asyncio.sleep(0.9)
    assert chain.ticks <= 6, chain.ticks
    waiting.cancel()


@dataclass
class Sent:
    """Writes sent when first awaited, each landing in the slot it was sent in and finalized
    ``FINALITY_DEPTH`` slots later. Counts the watcher's ticks."""

    start: dict[str, float] = field(default_factory=dict)
    ticks: int = 0

    def send(self, key: str) -> None:
        self.start[key] = time.monotonic()

    async def check_many(self, keys: Sequence[str], *, drive: bool = True) -> dict[str, Any]:
        self.ticks += 1
        found = {}
        for key in keys:
            depth = int((time.monotonic() - self.start[key]) / SLOT)
            write = (
                _write("succeeded", None) if depth >= FINALITY_DEPTH else _write("landed", depth)
            )
            found[key] = replace(write, op_key=key)
        return found


async def test_a_write_just_sent_is_looked_at_once_at_its_expected_finality() -> None:
    """Pass four: no look right after the send (it cannot have landed yet) and none between
    its landing and its finality once the slot time is known: one look, a status call and a
    read, where there were four (0, 0.2, 0.4 s, then near 0.62 s)."""
    chain = Sent()
    watcher = FinalityWatcher(cast(ChainWrites, chain), 0.2, patience=2.0)
    chain.send("first")  # the slot time is not known yet: a look at 0.2 s measures it
    assert (await watcher.wait("first", timeout=5, just_sent=True)).status == "succeeded"
    assert chain.ticks <= 3, chain.ticks
    for i in range(3):
        chain.ticks = 0
        chain.send(f"w{i}")
        write = await watcher.wait(f"w{i}", timeout=5, just_sent=True)
        late = time.monotonic() - (chain.start[f"w{i}"] + FINALITY_DEPTH * SLOT)
        assert write.status == "succeeded"
        assert chain.ticks <= 2, chain.ticks
        assert late < 3 * SLOT, late


async def test_a_write_that_joins_a_long_wait_is_looked_at_on_time() -> None:
    """The loop may sleep up to ``patience`` (a landed write due late, on a slow chain); a write
    that joins meanwhile with an earlier first look wakes it: here one resumed (not just sent,
    its first look an interval away) and final already is seen so, not after the long wait."""
    slow = 0.1  # a slot: the landed write's finality ~3 s away, its next look at 2 s

    @dataclass
    class Chain:
        start: float = field(default_factory=time.monotonic)

        async def check_many(self, keys: Sequence[str], *, drive: bool = True) -> dict[str, Any]:
            depth = int((time.monotonic() - self.start) / slow)
            found = {"landed": replace(_write("landed", depth), op_key="landed")}
            if "final" in keys:
                found["final"] = replace(_write("succeeded", None), op_key="final")
            return {k: v for k, v in found.items() if k in keys}

    watcher = FinalityWatcher(cast(ChainWrites, Chain()), 0.2, patience=2.0)
    landed = asyncio.create_task(watcher.wait("landed", timeout=10))
    await asyncio.sleep(0.5)  # looked at twice (0.2, 0.4 s): the slot time known, next at 2.4 s
    started = time.monotonic()
    assert (await watcher.wait("final", timeout=5)).status == "succeeded"
    assert time.monotonic() - started < 0.4
    landed.cancel()
