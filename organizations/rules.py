"""The tech-tree rules (decisions.md, "Organizations and the tech tree"), as constants and
pure functions. Amounts are USDC base units (6 decimals)."""

from __future__ import annotations

from dataclasses import dataclass
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


def day_qualifies(member_count: int, total_input: int) -> bool:
    """>= 900 members and an average input >= 20 USDC (compared exactly, no rounding)."""
    return member_count >= MIN_MEMBERS and total_input >= MIN_AVG_INPUT * member_count


def is_lit(qualifying_days: Decimal | int) -> bool:
    """A station's own count, or the average over the stations under a higher unit."""
    return Decimal(qualifying_days) >= MIN_QUALIFYING_DAYS


def bonus_percent(lit_types: set[str] | frozenset[str]) -> int:
    """Cumulative: the sum of the bonuses of the lit units on a member's chain."""
    return sum(BONUS_PERCENT[t] for t in lit_types)


def multiplier(percent: int) -> Decimal:
    """``bonus_multiplier`` = 1 + bonus (130 % → 1.3)."""
    return Decimal(100 + percent) / 100


@dataclass(frozen=True)
class Missing:
    """What a unit lacks to light (zero when it is lit or not applicable)."""

    days: int
    members: int
    avg_input: int


def missing_for_station(qualifying_days: int, member_count: int, avg_input: int) -> Missing:
    return Missing(
        days=max(MIN_QUALIFYING_DAYS - qualifying_days, 0),
        members=max(MIN_MEMBERS - member_count, 0),
        avg_input=max(MIN_AVG_INPUT - avg_input, 0),
    )
