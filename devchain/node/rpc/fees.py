"""Fees and rent: getFeeForMessage (5000 lamports a signature plus the priority fee its
Compute Budget instructions ask, null for a blockhash the node does not know or that expired),
getRecentPrioritizationFees (the last 150 slots; a calm node's market is 0, the weather's
``congested`` raises it: ``devchain/node/weather.py``) and getMinimumBalanceForRentExemption."""

from __future__ import annotations

import base64
from typing import Any

from chain.fees import budget_of  # the runtime's reading of Compute Budget instructions
from devchain.node.rpc.dispatch import Params, Rpc, invalid, method
from devchain.node.rpc.params import arg, commitment, config

LAMPORTS_PER_SIGNATURE = 5000
RECENT_FEE_SLOTS = 150
MAX_FEE_ACCOUNTS = 128


def priority_fee(limit: int, price: int) -> int:
    """Lamports: the price per unit (micro-lamports) times the requested units, rounded up."""
    return (limit * price + 999_999) // 1_000_000


@method("getMinimumBalanceForRentExemption")
def get_minimum_balance(rpc: Rpc, params: Params) -> Any:
    size = arg(params, 0)
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise invalid("data length must be a non-negative integer")
    return rpc.chain.minimum_balance(size)


@method("getFeeForMessage")
def get_fee_for_message(rpc: Rpc, params: Params) -> Any:
    from solders.message import from_bytes_versioned

    c = commitment(config(params, 1))
    try:
        msg = from_bytes_versioned(base64.b64decode(arg(params, 0)))
    except Exception as exc:
        raise invalid(f"invalid message: {exc}") from exc
    if not rpc.chain.blockhash_valid(str(msg.recent_blockhash)):
        return rpc.ctx(c, None)  # as a validator: no fee for a blockhash it cannot process
    fee = LAMPORTS_PER_SIGNATURE * msg.header.num_required_signatures
    return rpc.ctx(c, fee + priority_fee(*budget_of(msg)))


@method("getRecentPrioritizationFees")
def get_recent_prioritization_fees(rpc: Rpc, params: Params) -> Any:
    accounts = params[0] if params else []
    if not isinstance(accounts, list) or len(accounts) > MAX_FEE_ACCOUNTS:
        raise invalid(f"expected a list of at most {MAX_FEE_ACCOUNTS} addresses")
    last = rpc.chain.slot
    first = max(0, last - RECENT_FEE_SLOTS + 1)
    return [{"slot": s, "prioritizationFee": 0} for s in range(first, last + 1)]
