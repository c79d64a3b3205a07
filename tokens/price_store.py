"""The seam to the on-chain price store (the Reincarnation program's ``update_price``).

``chain.reincarnation`` (branch wave-programs) owns the program interface: the pool PDA, the
instruction, and ``write_update_price(gateway, *, write_key, new_base_price)``, exactly once per
write key through the gateway's record-before-send protocol. The oracle calls it through this
module only, with the write key ``oracle-close:<close time>``, so one close can never be
written twice, whatever retries or crashes happen around it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from chain.gateway import ChainGateway
from tokens.prices import MAX_PRICE, MIN_PRICE


class PriceStoreMissing(RuntimeError):
    """``chain.reincarnation`` is not installed in this build: nothing can be written."""


def onchain_value(base_price: int) -> int:
    """The price store accepts 0.01..1000 USDC; a base outside is written at the bound."""
    return min(max(base_price, MIN_PRICE), MAX_PRICE)


def write_key(close_key: str) -> str:
    return f"oracle-close:{close_key}"


async def write_base_price(gateway: ChainGateway, *, close_key: str, base_price: int) -> str:
    """Write ``base_price`` for the close named ``close_key``; returns the transaction
    signature (the same one on every call for that close)."""
    try:
        module: Any = import_module("chain.reincarnation")
    except ModuleNotFoundError as exc:
        raise PriceStoreMissing(
            "chain.reincarnation (the price store client) is not in this build"
        ) from exc
    signature: str = await module.write_update_price(
        gateway, write_key=write_key(close_key), new_base_price=onchain_value(base_price)
    )
    return signature
