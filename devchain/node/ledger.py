"""The chain's ledger side: commitment levels, block times, blocks, signature statuses and
transaction history, and the counters of getTransactionCount and getRecentPerformanceSamples.
A mixin of ``Chain`` (``devchain/node/svm.py``), which holds the state it reads."""

from __future__ import annotations

import time
from collections import deque
from enum import Enum
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey

from devchain.node.persist import Store, Versions

FINALITY_DEPTH = 31  # a slot is finalized 31 slots later (Surfpool's rule)
STATUS_CACHE_SLOTS = 300  # getSignatureStatuses without history search looks back this far
PERF_SAMPLE_SECS = 60  # a validator samples its performance once a minute
PERF_SAMPLES = 720  # ... and keeps 12 hours of them


class Commitment(Enum):
    PROCESSED = "processed"
    CONFIRMED = "confirmed"
    FINALIZED = "finalized"

    @classmethod
    def parse(cls, value: Any, default: Commitment | None = None) -> Commitment:
        if value is None:
            return default or cls.FINALIZED  # the real RPC defaults to finalized
        legacy = {"recent": "processed", "single": "confirmed", "singleGossip": "confirmed"}
        legacy |= {"max": "finalized", "root": "finalized"}
        return cls(legacy.get(value, value))  # ValueError → invalid params


class RpcError(Exception):
    """A JSON-RPC error to hand back to the client as-is."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def now() -> int:
    return int(time.time())


class Ledger:
    """Reads of the chain's history; ``Chain`` sets every attribute declared here."""

    slot: int
    store: Store
    genesis_time: int
    _seq: int
    _recent: dict[str, tuple[int, Any]]
    _block_time: dict[int, int]
    _times: list[tuple[int, int]]
    _last_time: int
    _slot_txs: dict[int, int]
    perf_period: int
    perf_samples: deque[dict[str, int]]
    _perf_mark: tuple[float, int, int]

    versions: Versions
    _versions_dirty: bool
    _dirty: dict[Pubkey, Account | None]
    _pending: list[tuple[dict[str, Any], list[str]]]

    def blockhash_of(self, slot: int) -> str:
        raise NotImplementedError

    def meta(self) -> dict[str, Any]:
        raise NotImplementedError

    def commitment_slot(self, c: Commitment) -> int:
        if c is Commitment.PROCESSED:
            return self.slot
        if c is Commitment.CONFIRMED:
            return max(self.slot - 1, 0)
        return max(self.slot - FINALITY_DEPTH, 0)

    def block_height(self, c: Commitment) -> int:
        return self.commitment_slot(c)  # one block per slot

    def block(self, slot: int, c: Commitment) -> tuple[str, str, int | None, list[dict[str, Any]]]:
        """(blockhash, previous blockhash, block time, txs) of a closed slot."""
        if slot > self.commitment_slot(c) or slot >= self.slot or slot < 0:
            raise RpcError(-32004, f"Block not available for slot {slot}")
        txs = self.store.txs_in_slot(slot)
        when = txs[0]["blockTime"] if txs else self.block_time(slot)
        prev = self.blockhash_of(max(slot - 1, 0))
        return self.blockhash_of(slot), prev, when, txs

    def _stamp(self, slot: int) -> None:
        """The block time of a newly opened slot (the wall clock, whole seconds)."""
        when = self._block_time[slot] = now()
        if when != self._last_time:
            self._times.append((slot, when))
            self._last_time = when

    def block_time(self, slot: int) -> int:
        """Every block has a time: the second its slot opened (genesis: the genesis time)."""
        if slot <= 0:
            return self.genesis_time
        if (when := self._block_time.get(slot)) is not None:
            return when
        return self.store.block_time(slot) or self.genesis_time

    def transaction_count(self, c: Commitment) -> int:
        """Transactions landed up to the commitment's slot (there are no vote transactions)."""
        cutoff = self.commitment_slot(c)
        return self._seq - sum(n for s, n in self._slot_txs.items() if s > cutoff)

    def _sample_performance(self) -> None:
        at, slot, seq = self._perf_mark
        now = time.monotonic()
        if now - at < self.perf_period:
            return
        sample = {
            "slot": self.slot,
            "numTransactions": self._seq - seq,
            "numNonVoteTransactions": self._seq - seq,
            "numSlots": self.slot - slot,
            "samplePeriodSecs": self.perf_period,
        }
        self.perf_samples.append(sample)
        self._perf_mark = (now, self.slot, self._seq)

    def confirmation(self, slot: int) -> tuple[int | None, str]:
        depth = self.slot - slot
        if depth >= FINALITY_DEPTH:
            return None, "finalized"
        return depth, "confirmed" if depth >= 1 else "processed"

    def visible(self, slot: int, c: Commitment) -> bool:
        return slot <= self.commitment_slot(c)

    def signature_status(self, sig: str, search_history: bool) -> dict[str, Any] | None:
        hit = self._recent.get(sig)
        if hit is None:
            rec = self.store.get_tx(sig) if search_history else None
            if rec is None:
                return None
            hit = (rec["slot"], rec["err"])
        slot, err = hit
        confirmations, status = self.confirmation(slot)
        return {
            "slot": slot,
            "confirmations": confirmations,
            "err": err,
            "status": {"Ok": None} if err is None else {"Err": err},
            "confirmationStatus": status,
        }

    def get_tx(self, sig: str, c: Commitment) -> dict[str, Any] | None:
        rec = self.store.get_tx(
            sig
        )  # txs of closed slots are flushed; ≥confirmed never sees others
        if rec is None or not self.visible(rec["slot"], c):
            return None
        return rec

    def tx_seq(self, sig: str) -> int | None:
        return self.store.tx_seq(sig)

    def signatures_for_address(
        self, address: str, before: int | None, until: int | None, limit: int, c: Commitment
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        cursor = before
        cutoff = self.commitment_slot(c)
        while len(out) < limit:
            batch = self.store.signatures_for_address(address, cursor, until, limit)
            if not batch:
                break
            out += [r for r in batch if r["slot"] <= cutoff]
            cursor = batch[-1]["seq"]
        return out[:limit]

    # -- persistence ---------------------------------------------------------------------

    def _prune_versions(self) -> None:
        fin = self.commitment_slot(Commitment.FINALIZED)
        for key in list(self.versions):
            vs = self.versions[key]
            i = max(j for j, (s, _) in enumerate(vs) if s <= fin)
            if i == len(vs) - 1:
                del self.versions[key]  # the current state is final: plain LiteSVM read
                self._versions_dirty = True
            elif i > 0:
                del vs[:i]
                self._versions_dirty = True

    def flush(self, force: bool = False) -> None:
        if not (force or self._dirty or self._pending or self._versions_dirty):
            return
        versions = self.versions if self._versions_dirty else None
        self.store.commit(self.meta(), self._dirty, self._pending, versions, self._times)
        self._dirty = {}
        self._pending = []
        self._times = []
        self._versions_dirty = False

    def close(self) -> None:
        self.flush(force=True)
        self.store.close()
