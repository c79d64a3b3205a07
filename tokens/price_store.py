"""The oracle's one door to the on-chain price store (the Reincarnation program's
``update_price``, client in ``chain/reincarnation.py``).

Each close is written with the write key ``oracle-close:<close time>``; the client goes through
the gateway's record-before-send protocol, so one close can never be written twice, whatever
retries or crashes happen around it: a retry with the same key resumes the same write and
returns the same signature.
"""

from __future__ import annotations

from chain.gateway import ChainGateway
from chain.reincarnation import MAX_BASE_PRICE, MIN_BASE_PRICE, write_update_price


def onchain_value(base_price: int) -> int:
    """The price store accepts 0.01..1000 USDC; a base outside is written at the bound."""
    return min(max(base_price, MIN_BASE_PRICE), MAX_BASE_PRICE)


def write_key(close_key: str) -> str:
    return f"oracle-close:{close_key}"


async def write_base_price(gateway: ChainGateway, *, close_key: str, base_price: int) -> str:
    """Write ``base_price`` for the close named ``close_key``; returns the transaction
    signature (the same one on every call for that close)."""
    return await write_update_price(
        gateway, write_key=write_key(close_key), new_base_price=onchain_value(base_price)
    )
