"""A transfer's latency against the chain's own floor (issue 43, aim 3), run by bench/costs.py
on its stack: transfers requested at ``rate`` a second (open loop) for ``seconds``; for each,
the time from its request to its ``transfer.completed`` webhook received, and the chain's own
part of it: from the slot its transaction landed in to that slot's finalization, as the node
reported them (a poller in this process asks the node for its processed and finalized slots
every slot and notes when each slot was first seen at each commitment). What is left is the
gateway's overhead: accept, workflow start, batching, signing, sending, the wait for the
landing, booking, the pump and the POST.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any

import httpx
import orjson

from bench._procs import pct


@dataclass(frozen=True)
class Latency:
    n: int  # transfers whose webhook arrived
    sent: int
    e2e_p50_s: float
    e2e_p99_s: float
    chain_p50_s: float
    chain_p99_s: float
    overhead_p50_s: float
    overhead_p99_s: float
    # Median seconds of each step, from the transfers' own timestamps and the slot clock:
    # requested -> claimed (accept, workflow start, batching), claimed -> landing slot seen
    # (record, sign, send, land), landing slot finalized -> booked (the finality watch, the
    # receipt, the booking), booked -> webhook received (the pump and the POST).
    phases: dict[str, float] | None = None


class SlotClock:
    """When each slot was first seen processed and finalized (wall time, this process)."""

    def __init__(self, node_url: str, every: float) -> None:
        self.seen: dict[int, float] = {}
        self.final: dict[int, float] = {}
        self._url, self._every = node_url, every
        self._last_seen = self._last_final = -1

    def note(self, processed: int, finalized: int, now: float) -> None:
        """Slots up to each reported one that were not seen before are seen now."""
        for s in range(max(self._last_seen + 1, processed - 1000), processed + 1):
            self.seen.setdefault(s, now)
        for s in range(max(self._last_final + 1, finalized - 1000), finalized + 1):
            self.final.setdefault(s, now)
        self._last_seen = max(self._last_seen, processed)
        self._last_final = max(self._last_final, finalized)

    async def run(self, stop: asyncio.Event) -> None:
        body = orjson.dumps([
            {"jsonrpc": "2.0", "id": i, "method": "getSlot", "params": [{"commitment": c}]}
            for i, c in ((1, "processed"), (2, "finalized"))
        ])  # fmt: skip
        async with httpx.AsyncClient(timeout=5) as http:
            while not stop.is_set():
                r = await http.post(self._url, content=body)
                answers = {a["id"]: a["result"] for a in r.json()}
                self.note(int(answers[1]), int(answers[2]), time.time())
                await asyncio.sleep(self._every)


def latencies(
    requested: dict[str, float],
    received: dict[str, tuple[float, int]],
    clock: SlotClock,
) -> Latency:
    """From each transfer's request time, its webhook's arrival and landing slot, and the
    slot clock: the percentiles of end to end, the chain's own part, and the difference."""
    e2e, chain, overhead = [], [], []
    for tid, (arrived, slot) in received.items():
        if tid not in requested or slot not in clock.seen or slot not in clock.final:
            continue
        total = arrived - requested[tid]
        own = clock.final[slot] - clock.seen[slot]
        e2e.append(total)
        chain.append(own)
        overhead.append(total - own)
    if not e2e:
        nan = float("nan")
        return Latency(0, len(requested), nan, nan, nan, nan, nan, nan)
    return Latency(
        len(e2e), len(requested), pct(e2e, 0.5), pct(e2e, 0.99), pct(chain, 0.5),
        pct(chain, 0.99), pct(overhead, 0.5), pct(overhead, 0.99),
    )  # fmt: skip


async def run(
    http: httpx.AsyncClient,
    headers: dict[str, str],
    pairs: list[tuple[str, str]],
    completed: dict[str, tuple[float, int]],
    node_url: str,
    *,
    rate: float,
    seconds: float,
    slot_ms: int,
    sessions: Any,
) -> Latency:
    """``completed``: filled by the webhook receiver (transfer id -> (arrival, slot))."""
    clock = SlotClock(node_url, slot_ms / 1000)
    stop = asyncio.Event()
    poller = asyncio.create_task(clock.run(stop))
    requested: dict[str, float] = {}
    t0 = time.perf_counter()
    n = int(rate * seconds)

    async def one(i: int) -> None:
        await asyncio.sleep(max(0.0, t0 + i / rate - time.perf_counter()))
        src, dst = pairs[i % len(pairs)]
        body: dict[str, Any] = {
            "transfer_type": "bench", "from_uid": src, "to_uid": dst, "currency": "MCC",
            "amount": "0.001", "idempotency_key": uuid.uuid4().hex,
        }  # fmt: skip
        at = time.time()
        r = await http.post("/v1/transfer/request", json=body, headers=headers)
        if r.status_code != 202:
            raise RuntimeError(f"transfer refused: {r.status_code} {r.text}")
        requested[r.json()["data"]["id"]] = at

    await asyncio.gather(*(one(i) for i in range(n)))
    for _ in range(1200):  # a minute at most for the last webhooks
        if set(requested) <= set(completed):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(2 * slot_ms / 1000)
    stop.set()
    await poller
    found = latencies(requested, dict(completed), clock)
    steps = await phases(sessions, requested, completed, clock)
    return Latency(**{**asdict(found), "phases": steps})


async def phases(
    sessions: Any,
    requested: dict[str, float],
    completed: dict[str, tuple[float, int]],
    clock: SlotClock,
) -> dict[str, float]:
    from sqlalchemy import select

    from db.models.engine import Transfer

    async with sessions() as s:
        rows = (
            await s.execute(
                select(Transfer.id, Transfer.onchain_at, Transfer.finished_at, Transfer.slot).where(
                    Transfer.id.in_(list(requested))
                )
            )
        ).all()
    steps: dict[str, list[float]] = {}
    for tid, claimed, booked, slot in rows:
        if None in (claimed, booked, slot) or tid not in completed:
            continue
        if slot not in clock.seen or slot not in clock.final:
            continue
        marks = [
            ("requested -> claimed", requested[tid], claimed.timestamp()),
            ("claimed -> landed", claimed.timestamp(), clock.seen[slot]),
            ("landed -> finalized (chain)", clock.seen[slot], clock.final[slot]),
            ("finalized -> booked", clock.final[slot], booked.timestamp()),
            ("booked -> webhook", booked.timestamp(), completed[tid][0]),
        ]
        for name, a, b in marks:
            steps.setdefault(name, []).append(b - a)
    return {k: statistics.median(v) for k, v in steps.items()}
