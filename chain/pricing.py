"""Signing a chain write with its compute budget (``chain/fees.py``): the writes' one way to
sign (``chain/writes.py``), a first write and a re-sign after expiry."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from solders.hash import Hash
from solders.instruction import Instruction
from solders.transaction import VersionedTransaction

from chain.errors import ChainUnavailable
from chain.fees import (
    MAX_UNITS,
    FeeOracle,
    budget_instructions,
    budget_of,
    unit_limit,
    with_price,
    writable_in,
    writable_of,
)
from chain.reads import ChainReads
from chain.signing import Signer
from chain.write_record import Signed


class PricedSigner:
    """Signs a write's instructions followed by its compute-unit limit and price (appended, so
    an instruction's index in an error is its index in the caller's list)."""

    def __init__(self, signer: Signer, reads: ChainReads, oracle: FeeOracle | None) -> None:
        self._signer = signer
        self._reads = reads
        self._oracle = oracle

    async def sign(
        self, instructions: Sequence[Instruction], simulate: bool, *, past: str | None = None
    ) -> tuple[Signed, Any]:
        """The signed write and the simulation's error (None: send it). ``past``: a blockhash
        not to sign on (``_blockhash``)."""
        blockhash = await self._blockhash(past)
        if self._oracle is None:  # no compute budget: the instructions as they are
            signed = self._signer.sign(instructions, *blockhash)
            err = (await self._reads.simulation(signed.tx_bytes))[0] if simulate else None
            return signed, err
        price = await self._oracle.price(writable_of(instructions))
        err, units = None, None
        if simulate:  # with the most units, to learn what it consumes
            probe = self._signer.sign(
                [*instructions, *budget_instructions(MAX_UNITS, price)], *blockhash
            )
            err, units = await self._reads.simulation(probe.tx_bytes)
        limit = unit_limit(units, len(instructions), self._oracle.policy.cu_margin)
        signed = self._signer.sign([*instructions, *budget_instructions(limit, price)], *blockhash)
        return signed, err

    async def resign(self, tx_bytes: bytes, *, past: str | None = None) -> Signed:
        """The same instructions with a fresh blockhash; a priced write may pay more."""
        blockhash = await self._blockhash(past)
        message = VersionedTransaction.from_bytes(tx_bytes).message
        _, old = budget_of(message)
        if self._oracle is None or not old:
            return self._signer.resign(tx_bytes, *blockhash)
        price = await self._oracle.raised(writable_in(message), old)
        return self._signer.resign(tx_bytes, *blockhash, with_price(message, price))

    async def _blockhash(self, past: str | None) -> tuple[Hash, int]:
        """The latest blockhash; with ``past``, a newer one than ``past``. Two writes of the
        same instructions signed on one blockhash are one transaction with one signature: one
        of them could never land on its own. The writes sign the second again past the first's
        blockhash (``chain/writes.py``); a new one comes every slot."""
        for _ in range(_NEWER_TRIES):
            blockhash = await self._reads.latest_blockhash()
            if past is None or str(blockhash[0]) != past:
                return blockhash
            await asyncio.sleep(_NEWER_WAIT)
        raise ChainUnavailable(f"the node answered blockhash {past} for {_NEWER_TRIES} reads")


# A slot is 0.4 s (20 ms on the tests' node): a newer blockhash within a few slots, or the
# node is stuck (retryable).
_NEWER_WAIT = 0.05
_NEWER_TRIES = 100
