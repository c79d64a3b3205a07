"""Slots, blockhashes and blocks: getSlot, getBlockHeight, getEpochInfo, getLatestBlockhash,
isBlockhashValid, getBlock, getBlocks, getBlocksWithLimit, getBlockTime. One block per slot,
none skipped, so a block's height is its slot."""

from __future__ import annotations

from typing import Any

from devchain.node.rpc.dispatch import Params, Rpc, invalid, method
from devchain.node.rpc.encoding import encode_tx
from devchain.node.rpc.params import arg, at_least_confirmed, commitment, config, slot_arg
from devchain.node.svm import Commitment

MAX_BLOCK_RANGE = 500_000  # getBlocks: at most this many slots past start_slot


@method("getSlot")
def get_slot(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.commitment_slot(commitment(config(params, 0)))


@method("getBlockHeight")
def get_block_height(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.block_height(commitment(config(params, 0)))


@method("getEpochInfo")
def get_epoch_info(rpc: Rpc, params: Params) -> Any:
    slot = rpc.chain.commitment_slot(commitment(config(params, 0)))
    return {
        "absoluteSlot": slot,
        "blockHeight": slot,
        "epoch": 0,
        "slotIndex": slot,
        "slotsInEpoch": 432000,
        "transactionCount": None,
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
    if cfg.get("rewards") is not False:
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
    start = slot_arg(params, 0, "start_slot")
    limit = slot_arg(params, 1, "limit")
    if limit > MAX_BLOCK_RANGE:
        raise invalid(f"Limit too large; max {MAX_BLOCK_RANGE}")
    top = rpc.chain.commitment_slot(at_least_confirmed(config(params, 2)))
    return list(range(start, min(start + limit - 1, top) + 1))


@method("getBlockTime")
def get_block_time(rpc: Rpc, params: Params) -> Any:
    slot = arg(params, 0)
    if not isinstance(slot, int) or isinstance(slot, bool):
        raise invalid("slot must be an integer")
    return rpc.chain.block(slot, Commitment.CONFIRMED)[2]
