"""The price rule's arithmetic, in integers: prices are 6-decimal USDC units per whole MCC.

Nothing here does I/O, so the rule can be checked against the facts page's worked example.
A price that cannot be stored is refused here (``parse_price``), for every caller.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import Rejected

USDC_DECIMALS = 6
# The price store's own bounds (Reincarnation update_price: 6012 PriceBelowMinimum below,
# 6011 PriceExceedsMaximum above): $0.01 ... $1000 per MCC. A price outside can never be written.
MIN_PRICE = 10_000
MAX_PRICE = 1_000_000_000
BPS = 10_000
_PRICE = re.compile(r"^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,6}))?$")


class InvalidPrice(Rejected):
    """A price the store cannot hold (422 ``invalid-amount``, naming ``price_usdc``)."""

    def __init__(self, message: str) -> None:
        super().__init__(
            message, slug="invalid-amount", errors=[{"field": "price_usdc", "message": message}]
        )


def parse_price(text: object) -> int:
    """``"10.5"`` -> 10_500_000. Refuses anything but a positive decimal string with at most 6
    fractional digits inside the price store's bounds."""
    if not isinstance(text, str):
        raise InvalidPrice('price_usdc must be a decimal string such as "10.5"')
    match = _PRICE.match(text)
    if match is None:
        raise InvalidPrice(
            f"{text[:40]!r} is not a price: digits with at most 6 fractional digits, "
            "no sign, exponent or spaces"
        )
    whole, fraction = match.group(1), match.group(2) or ""
    units = int(whole) * 10**USDC_DECIMALS + int(fraction.ljust(USDC_DECIMALS, "0"))
    if units < MIN_PRICE:
        raise InvalidPrice("price_usdc must be at least 0.01 (the price store's minimum)")
    if units > MAX_PRICE:
        raise InvalidPrice("price_usdc must be at most 1000 (the price store's maximum)")
    return units


def buyback_price(base: int, premium_bps: int) -> int:
    """The on-chain formula: P = base + floor(base * premium_bps / 10000)."""
    return base + base * premium_bps // BPS


def middle_mean(closes: Sequence[int]) -> int:
    """The mean of the middle half of the closes (their interquartile mean), floored to a
    whole 6-decimal unit: the highest and the lowest quarter (``n // 4`` each) are left out,
    so up to a quarter of the closes, however far off, move it not at all. Fewer than four
    closes: their plain mean."""
    if not closes:
        raise ValueError("no closes")
    ordered = sorted(closes)
    cut = len(ordered) // 4
    middle = ordered[cut : len(ordered) - cut]
    return sum(middle) // len(middle)


def median_price(samples: Sequence[int]) -> int:
    """The median of the samples (the lower middle one for an even count: an integer that
    one of the samples actually was)."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    return ordered[(len(ordered) - 1) // 2]


def clamp_move(price: int, anchor: int | None, max_move_bps: int) -> int:
    """``price`` moved at most ``max_move_bps`` of ``anchor`` away from it (floored toward the
    anchor); unchanged without an anchor."""
    if anchor is None or anchor <= 0:
        return price
    step = anchor * max_move_bps // BPS
    return max(anchor - step, min(anchor + step, price))


def market_price(usdc_vault: int, mcc_vault: int, mcc_decimals: int) -> int | None:
    """USDC units per whole MCC from the pool's two vault balances; None for an empty pool."""
    if usdc_vault <= 0 or mcc_vault <= 0:
        return None
    return usdc_vault * 10**mcc_decimals // mcc_vault


@dataclass(frozen=True)
class Quote:
    price_usdc: int
    source: str  # market | admin | default


def choose(market: int | None, admin: int | None, default: int) -> Quote:
    """Priority: the market price, else the administrator's, else the default."""
    if market is not None and market > 0:
        return Quote(market, "market")
    if admin is not None and admin > 0:
        return Quote(admin, "admin")
    return Quote(default, "default")
