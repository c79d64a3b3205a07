"""Weather for the local node: it answers as a busy public cluster's RPC provider does
(``python -m devchain.node --weather PROFILE``, ``mccgw dev --weather PROFILE``; issue 39).

The node's two seams carry it (``devchain/node/rpc/__init__.py``): an HTTP middleware for what
a provider does before any node sees the request (a 429 with ``Retry-After`` above a request
rate, added latency), and a JSON-RPC middleware for what the cluster does:

- ``dropped``: a share of the sends the node answers with the signature never execute (dropped
  under load, or forwarded to a leader that skipped its slot); a re-send rolls the dice again;
- ``rate-limited``: above ``rps`` requests in a second, HTTP 429 with ``Retry-After: 1``;
- ``lagging``: a share of the requests is answered by a node ``lag_slots`` behind: lower slots
  and heights, a blockhash that old, ``null`` for a signature that landed within the lag, and
  "Blockhash not found" (preflight) or ``null`` fees for a blockhash newer than its view;
- ``congested``: a send whose compute-unit price is under the market's (``fee``
  micro-lamports a unit) waits ``late_slots`` (random) before it executes, if its blockhash is
  still valid then: it lands late or expires. ``getRecentPrioritizationFees`` reports the
  market around ``fee``;
- ``storm``: all of it; ``calm``: none.

Deterministic per ``seed`` (a random generator of its own), so a run can be repeated.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web
from solders.transaction import VersionedTransaction

from chain.fees import budget_of
from devchain.node.rpc import Call, Params, Rpc
from devchain.node.rpc.transactions import decode_tx
from devchain.node.svm import Chain, RpcError


@dataclass(frozen=True)
class Weather:
    name: str = "calm"
    drop: float = 0.0  # share of accepted sends that never execute
    rps: float = 0.0  # requests a second above which the provider answers 429 (0: never)
    lag_share: float = 0.0  # share of requests answered by the lagging node
    lag_slots: int = 0
    fee: int = 0  # the market's compute-unit price (micro-lamports); cheaper sends wait
    late_slots: tuple[int, int] = (0, 0)  # how long a cheap send waits, in slots
    latency: float = 0.0  # up to this many seconds added to each request

    @property
    def calm(self) -> bool:
        return self == Weather(self.name)


_DROPPED = Weather("dropped", drop=0.5)
_LIMITED = Weather("rate-limited", rps=40.0, latency=0.05)
_LAGGING = Weather("lagging", lag_share=0.4, lag_slots=12)
_CONGESTED = Weather("congested", fee=5_000, late_slots=(20, 240))
PROFILES: dict[str, Weather] = {
    "calm": Weather("calm"),
    "dropped": _DROPPED,
    "rate-limited": _LIMITED,
    "lagging": _LAGGING,
    "congested": _CONGESTED,
    "storm": replace(
        _CONGESTED,
        name="storm",
        drop=_DROPPED.drop,
        rps=_LIMITED.rps,
        latency=0.2,
        lag_share=_LAGGING.lag_share,
        lag_slots=_LAGGING.lag_slots,
    ),
}

_HEIGHTS = frozenset({"getSlot", "getBlockHeight"})


class Sky:
    """One node's weather: the middlewares and the sends it holds back."""

    def __init__(self, chain: Chain, weather: Weather, seed: int = 39) -> None:
        self.chain = chain
        self.weather = weather
        self._rng = random.Random(seed)
        self._held: dict[str, tuple[int, VersionedTransaction]] = {}  # sig -> (due slot, tx)
        self._window: list[float] = []  # request times within the last second
        self.counts: dict[str, int] = {"dropped": 0, "limited": 0, "lagged": 0, "held": 0}
        chain.on_slot.append(self._release)

    # -- what the provider does with the HTTP request ------------------------------------

    @web.middleware
    async def http(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        w = self.weather
        if w.rps > 0 and request.method == "POST":
            now = time.monotonic()
            self._window = [t for t in self._window if now - t < 1.0]
            if len(self._window) >= w.rps:
                self.counts["limited"] += 1
                return web.Response(
                    status=429, headers={"Retry-After": "1"}, text="Too many requests"
                )
            self._window.append(now)
        if w.latency > 0:
            await asyncio.sleep(self._rng.uniform(0, w.latency))
        return await handler(request)

    # -- what the cluster does with the call ---------------------------------------------

    def rpc(self, rpc: Rpc, name: str, params: Params, call_next: Call) -> Any:
        w = self.weather
        lagging = w.lag_share > 0 and self._rng.random() < w.lag_share
        if name == "sendTransaction":
            return self._send(rpc, params, call_next, lagging)
        if name == "getRecentPrioritizationFees":
            return self._market(call_next(rpc, name, params))
        if not lagging:
            return call_next(rpc, name, params)
        self.counts["lagged"] += 1
        return self._lagged(rpc, name, params, call_next)

    def _send(self, rpc: Rpc, params: Params, call_next: Call, lagging: bool) -> Any:
        w = self.weather
        cfg = params[1] if len(params) > 1 and isinstance(params[1], dict) else {}
        tx = decode_tx(params[0] if params else None, cfg.get("encoding") or "base58")
        sig = str(tx.signatures[0])
        landed = sig in self.chain._recent
        if landed or sig in self._held:
            return sig if sig in self._held else call_next(rpc, "sendTransaction", params)
        blockhash = str(tx.message.recent_blockhash)
        if lagging and self._newer_than_view(blockhash):
            self.counts["lagged"] += 1
            if not cfg.get("skipPreflight"):
                raise RpcError(-32002, "Transaction simulation failed: Blockhash not found")
            return sig  # a lagging node forwards it, and its leader does not know it either
        if w.drop > 0 and self._rng.random() < w.drop:
            self.counts["dropped"] += 1
            return sig
        if w.fee > 0 and budget_of(tx.message)[1] < w.fee:
            self.counts["held"] += 1
            self._held[sig] = (self.chain.slot + self._rng.randint(*w.late_slots), tx)
            return sig
        return call_next(rpc, "sendTransaction", params)

    def _release(self, slot: int) -> None:
        """Each slot: the held sends whose turn came execute, if their blockhash still lets them."""
        for sig, (due, tx) in list(self._held.items()):
            if due > slot:
                continue
            del self._held[sig]
            if self.chain.blockhash_valid(str(tx.message.recent_blockhash)):
                with contextlib.suppress(RpcError):  # as a leader drops what it cannot run
                    self.chain.send(tx, skip_preflight=True)

    def _market(self, answer: Any) -> Any:
        if self.weather.fee <= 0 or not isinstance(answer, list):
            return answer
        fee = self.weather.fee
        for entry in answer:  # around the market's price, steady per slot
            entry["prioritizationFee"] = fee // 2 + (entry["slot"] * 7919) % (fee + 1)
        return answer

    # -- the lagging node ----------------------------------------------------------------

    def _newer_than_view(self, blockhash: str) -> bool:
        made = self.chain._hash_height.get(blockhash)
        return made is not None and made > self.chain.slot - self.weather.lag_slots

    def _lagged(self, rpc: Rpc, name: str, params: Params, call_next: Call) -> Any:
        lag = self.weather.lag_slots
        answer = call_next(rpc, name, params)
        if name in _HEIGHTS and isinstance(answer, int):
            return max(0, answer - lag)
        if name == "getEpochInfo" and isinstance(answer, dict):
            for key in ("absoluteSlot", "blockHeight", "slotIndex"):
                answer[key] = max(0, answer[key] - lag)
            return answer
        if not isinstance(answer, dict) or "context" not in answer:
            return answer
        view = max(0, answer["context"]["slot"] - lag)
        answer["context"]["slot"] = view
        value = answer.get("value")
        if name == "getSignatureStatuses" and isinstance(value, list):
            answer["value"] = [v if v is None or v["slot"] <= view else None for v in value]
        elif name == "getLatestBlockhash" and isinstance(value, dict):
            value["blockhash"] = self.chain.blockhash_of(view)
            value["lastValidBlockHeight"] -= lag
        elif name == "getFeeForMessage":
            answer["value"] = self._lagged_fee(params, value)
        return answer

    def _lagged_fee(self, params: Params, value: Any) -> Any:
        import base64

        from solders.message import from_bytes_versioned

        try:
            msg = from_bytes_versioned(base64.b64decode(params[0]))
        except Exception:
            return value
        return None if self._newer_than_view(str(msg.recent_blockhash)) else value
