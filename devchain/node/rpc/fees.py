"""Fees and rent: getFeeForMessage (5000 lamports a signature, no priority fee) and
getMinimumBalanceForRentExemption."""

from __future__ import annotations

import base64
from typing import Any

from devchain.node.rpc.dispatch import Params, Rpc, invalid, method
from devchain.node.rpc.params import arg, commitment, config


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
    return rpc.ctx(c, 5000 * msg.header.num_required_signatures)
