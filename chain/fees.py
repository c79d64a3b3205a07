"""Landing under congestion: the compute budget of every chain write (docs/chain.md, "Fees").

Every write carries two Compute Budget instructions ahead of its own: a compute-unit limit
(what a simulation consumed, plus ``CHAIN_CU_MARGIN``; without a simulation, the runtime's
default of 200 000 units an instruction) and a compute-unit price, the
``CHAIN_FEE_PERCENTILE``-th percentile of ``getRecentPrioritizationFees`` over the write's
writable accounts, kept between ``CHAIN_FEE_FLOOR`` and ``CHAIN_FEE_CEILING`` (micro-lamports
a unit). Once the priority fees of the writes finalized since midnight UTC reach
``CHAIN_FEE_DAILY_BUDGET`` lamports (0: no budget), new writes pay the floor.

Re-sends keep the same bytes (same price). A re-sign after expiry (``chain/writes.py``) may
raise the price: at least ``RAISE`` times the old one, at most the ceiling. The fee a write
paid (``fee_of``: 5 000 lamports a signature plus units times price) is recorded with it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from solders.compute_budget import set_compute_unit_limit, set_compute_unit_price
from solders.instruction import CompiledInstruction, Instruction
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from chain.errors import ChainError
from chain.rpc import ChainRpc

log = logging.getLogger(__name__)

COMPUTE_BUDGET = Pubkey.from_string("ComputeBudget111111111111111111111111111111")
MAX_UNITS = 1_400_000
DEFAULT_UNITS = 200_000  # an instruction's, without a limit
LAMPORTS_PER_SIGNATURE = 5000
MAX_FEE_ACCOUNTS = 128
RAISE = 1.5
BUDGET_INSTRUCTIONS = 2  # limit and price: what a write adds (mind the transaction's size)


@dataclass(frozen=True)
class FeePolicy:
    percentile: float = 75.0
    floor: int = 1_000  # micro-lamports a compute unit
    ceiling: int = 200_000
    cu_margin: float = 0.2
    daily_budget: int = 0  # lamports of priority fees a day (0: none)


def budget_instructions(limit: int, price: int) -> list[Instruction]:
    return [set_compute_unit_limit(limit), set_compute_unit_price(price)]


def unit_limit(consumed: int | None, instructions: int, margin: float) -> int:
    """The limit to ask: what the simulation consumed plus the margin (at least 1 000 more),
    or the runtime's default for ``instructions`` when there was no simulation."""
    if consumed is None:
        return min(MAX_UNITS, DEFAULT_UNITS * instructions)
    return min(MAX_UNITS, max(consumed + 1_000, int(consumed * (1 + margin))))


def budget_of(message: Any) -> tuple[int, int]:
    """A compiled message's compute-unit limit and price (0 when it sets none)."""
    keys = list(message.account_keys)
    limit, price, others = None, 0, 0
    for ix in message.instructions:
        data = bytes(ix.data)
        if keys[ix.program_id_index] != COMPUTE_BUDGET:
            others += 1
        elif data[:1] == b"\x02" and len(data) >= 5:
            limit = int.from_bytes(data[1:5], "little")
        elif data[:1] == b"\x03" and len(data) >= 9:
            price = int.from_bytes(data[1:9], "little")
    return min(MAX_UNITS, DEFAULT_UNITS * others if limit is None else limit), price


def fee_of(tx_bytes: bytes) -> int:
    """Lamports a transaction pays: per signature, plus its priority fee (units times price)."""
    message = VersionedTransaction.from_bytes(tx_bytes).message
    limit, price = budget_of(message)
    base = LAMPORTS_PER_SIGNATURE * message.header.num_required_signatures
    return base + (limit * price + 999_999) // 1_000_000


def writable_of(instructions: Sequence[Instruction]) -> list[Pubkey]:
    seen: dict[Pubkey, None] = {}
    for ix in instructions:
        for meta in ix.accounts:
            if meta.is_writable:
                seen.setdefault(meta.pubkey, None)
    return list(seen)


def writable_in(message: Any) -> list[Pubkey]:
    """The writable accounts of a compiled legacy message (from its header)."""
    h = message.header
    keys = list(message.account_keys)
    signed = keys[: h.num_required_signatures - h.num_readonly_signed_accounts]
    unsigned = keys[h.num_required_signatures : len(keys) - h.num_readonly_unsigned_accounts]
    return signed + unsigned


def with_price(message: Any, price: int) -> list[CompiledInstruction]:
    """The message's compiled instructions with its compute-unit price set to ``price``."""
    keys = list(message.account_keys)
    data = b"\x03" + price.to_bytes(8, "little")
    return [
        CompiledInstruction(ix.program_id_index, data, bytes(ix.accounts))
        if keys[ix.program_id_index] == COMPUTE_BUDGET and bytes(ix.data)[:1] == b"\x03"
        else ix
        for ix in message.instructions
    ]


def percentile(values: Sequence[int], pct: float) -> int:
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


class FeeOracle:
    """The compute-unit price of a write, from the cluster's recent priority fees."""

    def __init__(
        self, rpc: ChainRpc, policy: FeePolicy, spent: Callable[[], Awaitable[int]] | None = None
    ) -> None:
        self._rpc = rpc
        self.policy = policy
        self._spent = spent  # lamports of priority fees paid today
        self._spent_at = (0.0, 0)

    async def price(self, writable: Sequence[Pubkey]) -> int:
        p = self.policy
        if await self._over_budget():
            return p.floor
        accounts = [str(a) for a in writable[:MAX_FEE_ACCOUNTS]]
        try:
            fees = await self._rpc.call("getRecentPrioritizationFees", [accounts])
        except ChainError as exc:  # a node without the method, or down: the floor
            log.info("recent prioritization fees unavailable (%s); paying the floor", exc)
            return p.floor
        market = percentile([int(f["prioritizationFee"]) for f in fees or ()], p.percentile)
        return max(p.floor, min(p.ceiling, market))

    async def raised(self, writable: Sequence[Pubkey], old: int) -> int:
        """The price of a re-sign after expiry: the market's, at least RAISE times the old one,
        within the ceiling."""
        market = await self.price(writable)
        return max(market, min(self.policy.ceiling, int(old * RAISE) + 1))

    async def _over_budget(self) -> bool:
        if not self.policy.daily_budget or self._spent is None:
            return False
        at, spent = self._spent_at
        if time.monotonic() - at > 30:  # one query per 30 s per process
            spent = await self._spent()
            self._spent_at = (time.monotonic(), spent)
        return spent >= self.policy.daily_budget
