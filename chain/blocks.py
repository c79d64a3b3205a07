"""Finalized blocks, read whole: what the deposit watcher walks (tokens/deposits.py); and one
account's signatures and their transactions, read in batches: its catch-up walk.

Plain JSON through the process's one transport (``chain/rpc.py``, its error map): a block with
its full transactions is the watcher's unit of work, read as the node's JSON and matched as
it is. Every call is at ``finalized`` and asks for ``maxSupportedTransactionVersion: 0``, so
version-0 transactions (accounts from address lookup tables) come back with their
``loadedAddresses``.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any

from chain.errors import ChainRpcError
from chain.rpc import METHOD_NOT_FOUND, ChainRpc
from chain.transactions import TokenBalanceChange, parts, token_changes

# JSON-RPC codes of getBlock: -32004 block not available yet (retry), -32007 slot skipped
# (no block: nothing to examine), -32009 missing in long-term storage (a node without that
# history: an error, never "no deposits").
SLOT_SKIPPED = -32007
MAX_BLOCKS_RANGE = 500_000  # getBlocks answers at most this many slots per call
# getBlocksWithLimit's limit in the deposit walk: the blocks a poll lists at most (a walk after
# a long stop lists the next page once this one is read; the node allows up to 500,000).
BLOCKS_PAGE = 4096
SIGNATURES_PAGE = 1000  # getSignaturesForAddress returns at most this many per call
# getTransaction calls in one JSON-RPC batch: hosted providers cap a batch (commonly at 100 or
# fewer calls) and a transaction's answer is a few kilobytes.
TRANSACTIONS_BATCH = 50


@dataclass(frozen=True)
class BlockTx:
    """One transaction of a block, as the watcher needs it."""

    signature: str
    err: Any
    token_changes: tuple[TokenBalanceChange, ...]


@dataclass(frozen=True)
class Block:
    slot: int
    block_time: int | None
    transactions: list[BlockTx]
    skipped: int = 0  # transactions left unread (``blocks``' ``skip``)


@dataclass(frozen=True)
class SignatureRef:
    """One finalized signature touching an address (getSignaturesForAddress), without its
    transaction."""

    signature: str
    slot: int
    block_time: int | None
    err: Any


@dataclass(frozen=True)
class FoundTx:
    """One finalized transaction read alone (getTransaction): where it landed, and the same
    ``BlockTx`` a block would have given for it."""

    slot: int
    block_time: int | None
    tx: BlockTx


class BlockReader:
    """The deposit watcher's reads, over the process's one transport (``chain/rpc.py``):
    finalized blocks whole, and one account's signatures and transactions for its repair walk.
    ``time_limit``: of each request (a batch of whole blocks is large)."""

    def __init__(self, rpc: ChainRpc, *, time_limit: float = 30.0) -> None:
        self._rpc = rpc
        self._time_limit = time_limit
        self._get_blocks = True  # False: the node lacks getBlocks; every slot is asked for
        self._with_limit = True  # False: the node lacks getBlocksWithLimit (getSlot, getBlocks)

    async def _call(self, method: str, params: list[Any]) -> Any:
        return await self._rpc.call(method, params, time_limit=self._time_limit)

    async def genesis_hash(self) -> str:
        return str(await self._call("getGenesisHash", []))

    async def finalized_slot(self) -> int:
        return int(await self._call("getSlot", [{"commitment": "finalized"}]))

    async def blocks_after(
        self, after: int, limit: int = BLOCKS_PAGE
    ) -> tuple[list[int], int, bool]:
        """The next finalized blocks after slot ``after``: (their slots, at most ``limit``;
        the slot up to which those are all there are, so a walk that examined them may move
        its cursor there; whether more may follow at once). One ``getBlocksWithLimit`` at
        finalized answers both what the finalized slot is and which slots have a block (the
        walk's poll was ``getSlot`` then ``getBlocks``: two requests); a node without the
        method is asked those two (``more``: when getBlocks' range was capped)."""
        if self._with_limit:
            try:
                answer = await self._call(
                    "getBlocksWithLimit", [after + 1, limit, {"commitment": "finalized"}]
                )
                slots = [int(s) for s in answer]
                return slots, (slots[-1] if slots else after), len(slots) >= limit
            except ChainRpcError as exc:
                if exc.code != METHOD_NOT_FOUND:
                    raise
                self._with_limit = False
        end = await self.finalized_slot()
        if end <= after:
            return [], after, False
        slots = await self.block_slots(after + 1, end)
        covered = min(end, after + MAX_BLOCKS_RANGE)  # what getBlocks covered
        return slots, covered, covered < end

    async def block_slots(self, start: int, end: int) -> list[int]:
        """Slots in [start, end] that have a finalized block (skipped slots are left out)."""
        end = min(end, start + MAX_BLOCKS_RANGE - 1)
        if self._get_blocks:
            try:
                slots = await self._call("getBlocks", [start, end, {"commitment": "finalized"}])
                return [int(s) for s in slots]
            except ChainRpcError as exc:
                if exc.code != METHOD_NOT_FOUND:
                    raise
                self._get_blocks = False
        return list(range(start, end + 1))

    async def block(self, slot: int) -> Block | None:
        """The transactions of the finalized block at ``slot`` (None: the slot was skipped)."""
        return (await self.blocks([slot]))[0]

    async def blocks(self, slots: list[int], skip: Container[str] = ()) -> list[Block | None]:
        """The finalized blocks at ``slots`` in one batch request (None: a skipped slot). A
        transaction whose signature is in ``skip`` is left out unread (counted in the block's
        ``skipped``): the deposit follower's own writes (``chain/sent_here.py``)."""
        if not slots:
            return []
        answers = await self._rpc.batch(
            "getBlock", [[slot, _BLOCK_CONFIG] for slot in slots], time_limit=self._time_limit
        )
        out: list[Block | None] = []
        for slot, answer in zip(slots, answers, strict=True):
            error = answer.get("error")
            if error is not None and error.get("code") == SLOT_SKIPPED:
                out.append(None)
                continue
            block = ChainRpc.result("getBlock", answer)
            if block is None:
                out.append(None)
                continue
            entries = block.get("transactions") or []
            txs = [block_tx(e) for e in entries if not skip or _signature(e) not in skip]
            out.append(Block(slot, block.get("blockTime"), txs, len(entries) - len(txs)))
        return out

    async def signature_page(
        self, address: str, before: str | None = None, limit: int = SIGNATURES_PAGE
    ) -> list[SignatureRef]:
        """One page of the finalized signatures touching ``address``, NEWEST first: the
        ``limit`` (at most SIGNATURES_PAGE) landed just before ``before`` (None: the newest)."""
        config: dict[str, Any] = {"limit": limit, "commitment": "finalized"}
        if before is not None:
            config["before"] = before
        page = await self._call("getSignaturesForAddress", [address, config])
        return [
            SignatureRef(str(e["signature"]), int(e["slot"]), e.get("blockTime"), e.get("err"))
            for e in page
        ]

    async def signatures_of(
        self, address: str, from_slot: int = 0, to_slot: int | None = None
    ) -> list[SignatureRef]:
        """Every finalized signature touching ``address`` that landed in [from_slot, to_slot]
        (``to_slot`` None: up to the newest), OLDEST first; failed ones included (their ``err``
        set). Pages through getSignaturesForAddress (newest first, SIGNATURES_PAGE a call)
        until a page ends before ``from_slot``."""
        found: list[SignatureRef] = []
        before: str | None = None
        while True:
            page = await self.signature_page(address, before)
            found += [
                e for e in page if from_slot <= e.slot and (to_slot is None or e.slot <= to_slot)
            ]
            if len(page) < SIGNATURES_PAGE or page[-1].slot < from_slot:
                break
            before = page[-1].signature
        found.reverse()
        return found

    async def transaction(self, signature: str) -> FoundTx | None:
        """The finalized transaction ``signature`` (lookup-table accounts included), read with
        the one token-balance parser; None when the node has none at finalized."""
        return (await self.transactions([signature]))[0]

    async def transactions(self, signatures: Sequence[str]) -> list[FoundTx | None]:
        """The finalized transactions ``signatures``, in order, ``TRANSACTIONS_BATCH`` to an HTTP
        request (a JSON-RPC batch: one turn of the request budget and one round trip, where a
        call each took the catch-up of a long history 100 turns a step)."""
        out: list[FoundTx | None] = []
        for start in range(0, len(signatures), TRANSACTIONS_BATCH):
            chunk = signatures[start : start + TRANSACTIONS_BATCH]
            answers = await self._rpc.batch(
                "getTransaction",
                [[signature, _TRANSACTION_CONFIG] for signature in chunk],
                time_limit=self._time_limit,
            )
            for answer in answers:
                found = ChainRpc.result("getTransaction", answer)
                out.append(
                    None
                    if found is None
                    else FoundTx(int(found["slot"]), found.get("blockTime"), block_tx(found))
                )
        return out


# "accounts": each transaction's signatures and every account key (lookup-table ones marked by
# their source) with its meta (err, pre/post token balances), without instructions or logs:
# all the watcher reads, at a fraction of the bytes.
_BLOCK_CONFIG = {
    "commitment": "finalized",
    "encoding": "json",
    "transactionDetails": "accounts",
    "maxSupportedTransactionVersion": 0,
    "rewards": False,
}
_TRANSACTION_CONFIG = {
    "encoding": "json",
    "commitment": "finalized",
    "maxSupportedTransactionVersion": 0,
}


def _signature(entry: dict[str, Any]) -> str | None:
    """A getBlock entry's signature, read before anything else of it."""
    encoded = entry.get("transaction")
    signatures = encoded.get("signatures") if isinstance(encoded, dict) else None
    return str(signatures[0]) if signatures else None


def block_tx(entry: dict[str, Any]) -> BlockTx:
    """One getBlock entry (or a getTransaction answer, same shape) read with the one
    token-balance parser (chain/transactions.py: static keys, then lookup-table addresses)."""
    encoded, meta = parts(entry)
    return BlockTx(
        signature=str((encoded.get("signatures") or [""])[0]),
        err=meta.get("err"),
        token_changes=token_changes(entry),
    )
