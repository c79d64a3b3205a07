"""The tech-tree rules (decisions.md, "Organizations and the tech tree"), as constants and
pure functions. Amounts are USDC base units (6 decimals)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

USDC_DECIMALS = 6
USDC = 10**USDC_DECIMALS

STATION_CAPACITY = 1000
MIN_MEMBERS = 900  # "above 90 percent" of 1,000, read as 900 or more
MIN_AVG_INPUT = 20 * USDC  # average daily mining input per member, inclusive
WINDOW_DAYS = 30
MIN_QUALIFYING_DAYS = 21

LEVELS = ("station", "matrix", "sector", "system")
PARENT_TYPE = {"station": "matrix", "matrix": "sector", "sector": "system", "system": None}
CHILD_CAPACITY = {"matrix": 10, "sector": 10, "system": 10}
BONUS_PERCENT = {"station": 10, "matrix": 20, "sector": 30, "system": 40}


def window(last_day: date) -> tuple[date, date]:
    """The 30-day window ending with ``last_day`` (both ends included)."""
    return last_day - timedelta(days=WINDOW_DAYS - 1), last_day


def is_lit(qualifying_days: Decimal | int) -> bool:
    """A station's own count, or the average over the stations under a higher unit."""
    return Decimal(qualifying_days) >= MIN_QUALIFYING_DAYS


def bonus_percent(lit_types: set[str] | frozenset[str]) -> int:
    """Cumulative: the sum of the bonuses of the lit units on a member's chain."""
    return sum(BONUS_PERCENT[t] for t in lit_types)


def multiplier(percent: int) -> Decimal:
    """``bonus_multiplier`` = 1 + bonus (130 % → 1.3)."""
    return Decimal(100 + percent) / 100
