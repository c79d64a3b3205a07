"""Slots, blockhashes and blocks: getSlot, getBlockHeight, getEpochInfo, getLatestBlockhash,
isBlockhashValid, getBlock, getBlocks, getBlocksWithLimit, getBlockTime, getBlockCommitment,
getFirstAvailableBlock, minimumLedgerSlot, getTransactionCount, getRecentPerformanceSamples.
One block per slot, none skipped, so a block's height is its slot; the ledger keeps every
block from genesis on."""

from __future__ import annotations

from typing import Any

from devchain.node import validator
from devchain.node.ledger import FINALITY_DEPTH
from devchain.node.rpc.dispatch import Params, Rpc, invalid, method
from devchain.node.rpc.encoding import encode_tx
from devchain.node.rpc.params import (
    arg,
    at_least_confirmed,
    commitment,
    config,
    slot_arg,
    start_and_limit,
)
from devchain.node.svm import EPOCH_SCHEDULE, Commitment

MAX_BLOCK_RANGE = 500_000  # getBlocks: at most this many slots past start_slot
PERFORMANCE_SAMPLES_LIMIT = 720
MAX_LOCKOUT_HISTORY = 31  # a block commitment array has MAX_LOCKOUT_HISTORY + 1 entries


@method("getSlot")
def get_slot(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.commitment_slot(commitment(config(params, 0)))


@method("getBlockHeight")
def get_block_height(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.block_height(commitment(config(params, 0)))


@method("getEpochInfo")
def get_epoch_info(rpc: Rpc, params: Params) -> Any:
    c = commitment(config(params, 0))
    slot = rpc.chain.commitment_slot(c)
    epoch, index = EPOCH_SCHEDULE.get_epoch_and_slot_index(slot)
    return {
        "absoluteSlot": slot,
        "blockHeight": slot,
        "epoch": epoch,
        "slotIndex": index,
        "slotsInEpoch": EPOCH_SCHEDULE.get_slots_in_epoch(epoch),
        "transactionCount": rpc.chain.transaction_count(c),
    }


@method("getLatestBlockhash")
def get_latest_blockhash(rpc: Rpc, params: Params) -> Any:
    c = commitment(config(params, 0))
    blockhash, last_valid = rpc.chain.latest_blockhash(c)
    return rpc.ctx(c, {"blockhash": blockhash, "lastValidBlockHeight": last_valid})


@method("isBlockhashValid")
def is_blockhash_valid(rpc: Rpc, params: Params) -> Any:
    blockhash = arg(params, 0)
    if not isinstance(blockhash, str):
        raise invalid("blockhash must be a string")
    c = commitment(config(params, 1))
    return rpc.ctx(c, rpc.chain.blockhash_valid(blockhash))


@method("getBlock")
def get_block(rpc: Rpc, params: Params) -> Any:
    slot = slot_arg(params, 0, "slot")
    if len(params) > 1 and isinstance(params[1], str):  # legacy form: [slot, "json"]
        cfg: dict[str, Any] = {"encoding": params[1]}
    else:
        cfg = config(params, 1)
    blockhash, prev, when, txs = rpc.chain.block(slot, at_least_confirmed(cfg))
    return block_value(
        slot, blockhash, prev, when, txs, cfg, rewards=cfg.get("rewards") is not False
    )


def block_value(
    slot: int,
    blockhash: str,
    prev: str,
    when: int | None,
    txs: list[dict[str, Any]],
    cfg: dict[str, Any],
    *,
    rewards: bool,
) -> dict[str, Any]:
    """A block as getBlock and blockNotification give it (``cfg``: encoding,
    transactionDetails, rewards or showRewards, maxSupportedTransactionVersion)."""
    out: dict[str, Any] = {
        "blockHeight": slot,  # one block per slot, none skipped
        "blockTime": when,
        "blockhash": blockhash,
        "parentSlot": max(slot - 1, 0),
        "previousBlockhash": prev,
    }
    details = cfg.get("transactionDetails") or "full"
    if details in ("full", "accounts"):
        encoded = [encode_tx(r, cfg, details) for r in txs]
        out["transactions"] = [
            {k: e[k] for k in ("transaction", "meta", "version") if k in e} for e in encoded
        ]
    elif details == "signatures":
        out["signatures"] = [r["signature"] for r in txs]
    elif details != "none":
        raise invalid(f"unsupported transactionDetails: {details}")
    if rewards:
        out["rewards"] = []
    return out


@method("getBlocks")
def get_blocks(rpc: Rpc, params: Params) -> Any:
    """Slots of the blocks in [start_slot, end_slot] (end: the newest at the commitment)."""
    start = slot_arg(params, 0, "start_slot")
    end: int | None = None
    if len(params) > 1 and isinstance(params[1], dict):  # [start, config]
        cfg = config(params, 1)
    else:  # [start, end or null, config]
        if len(params) > 1 and params[1] is not None:
            end = slot_arg(params, 1, "end_slot")
        cfg = config(params, 2)
    top = rpc.chain.commitment_slot(at_least_confirmed(cfg))
    if (top if end is None else end) - start > MAX_BLOCK_RANGE:
        raise invalid(f"Slot range too large; max {MAX_BLOCK_RANGE}")
    end = top if end is None else min(end, top)
    return list(range(start, end + 1))


@method("getBlocksWithLimit")
def get_blocks_with_limit(rpc: Rpc, params: Params) -> Any:
    """At most ``limit`` block slots from start_slot on."""
    start, limit = start_and_limit(params, MAX_BLOCK_RANGE, "Limit too large")
    top = rpc.chain.commitment_slot(at_least_confirmed(config(params, 2)))
    return list(range(start, min(start + limit - 1, top) + 1))


@method("getBlockTime")
def get_block_time(rpc: Rpc, params: Params) -> Any:
    slot = arg(params, 0)
    if not isinstance(slot, int) or isinstance(slot, bool):
        raise invalid("slot must be an integer")
    return rpc.chain.block(slot, Commitment.CONFIRMED)[2]


@method("getBlockCommitment")
def get_block_commitment(rpc: Rpc, params: Params) -> Any:
    """The stake that voted on a block at each lockout depth: all of it (one validator) at the
    block's depth, for blocks not yet rooted; null for rooted and unknown blocks."""
    slot = slot_arg(params, 0, "block")
    v = validator.of(rpc.chain)
    total = validator.activated_stake(rpc.chain.get_account(v.stake, Commitment.FINALIZED))
    depth = rpc.chain.slot - slot
    if not 0 < depth < FINALITY_DEPTH:
        return {"commitment": None, "totalStake": total}
    stakes = [0] * (MAX_LOCKOUT_HISTORY + 1)
    stakes[depth] = total
    return {"commitment": stakes, "totalStake": total}


@method("getFirstAvailableBlock")
def get_first_available_block(rpc: Rpc, params: Params) -> Any:
    return 0


@method("minimumLedgerSlot")
def minimum_ledger_slot(rpc: Rpc, params: Params) -> Any:
    return 0


@method("getTransactionCount")
def get_transaction_count(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.transaction_count(commitment(config(params, 0)))


@method("getRecentPerformanceSamples")
def get_recent_performance_samples(rpc: Rpc, params: Params) -> Any:
    limit = PERFORMANCE_SAMPLES_LIMIT if not params or params[0] is None else params[0]
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise invalid("Invalid params: limit must be a non-negative integer")
    if limit > PERFORMANCE_SAMPLES_LIMIT:
        raise invalid(f"Invalid limit; max {PERFORMANCE_SAMPLES_LIMIT}")
    return list(reversed(rpc.chain.perf_samples))[:limit]
