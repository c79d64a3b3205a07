"""The MCD reward of a mining activity, and the bounds its numbers must respect.

    reward = (base + per_volume * trade_volume_usdc + per_trade * trade_count
              + per_profit * max(profit_usdc, 0)) * bonus_multiplier

in MCD, rounded down to the mint's 9 decimals; absent members count as 0. Coefficients are
settings (decimal strings): MINING_REWARD_BASE (default 1), MINING_REWARD_PER_VOLUME (0.001 per
USDC of volume), MINING_REWARD_PER_TRADE (0.01), MINING_REWARD_PER_PROFIT (0.01 per USDC of
profit). ``bonus_multiplier`` is the user's tech-tree bonus (organizations.bonus: 1 +
the bonuses of the lit units on the user's chain, 1.0 without any). Computed in Decimal,
never float; the result is integer base units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Any

from core.config import Settings

# member -> (minimum, maximum, must be an integer)
KNOWN_MEMBERS: dict[str, tuple[Decimal, Decimal, bool]] = {
    "trade_volume_usdc": (Decimal(0), Decimal(10) ** 9, False),
    "trade_count": (Decimal(0), Decimal(10) ** 6, True),
    "profit_usdc": (-(Decimal(10) ** 9), Decimal(10) ** 9, False),
}
# Any other numeric member must stay within this magnitude.
OTHER_LIMIT = Decimal(10) ** 12
MAX_MEMBERS = 50


@dataclass(frozen=True)
class RewardFormula:
    base: Decimal = Decimal("1")
    per_volume: Decimal = Decimal("0.001")
    per_trade: Decimal = Decimal("0.01")
    per_profit: Decimal = Decimal("0.01")

    @classmethod
    def of(cls, settings: Settings) -> RewardFormula:
        return cls(
            base=settings.mining_reward_base,
            per_volume=settings.mining_reward_per_volume,
            per_trade=settings.mining_reward_per_trade,
            per_profit=settings.mining_reward_per_profit,
        )


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def bounds_problem(activity_data: dict[str, Any]) -> str | None:
    """Why the numbers of ``activity_data`` are not sane, or None."""
    if len(activity_data) > MAX_MEMBERS:
        return f"activity_data has more than {MAX_MEMBERS} members"
    for name, value in activity_data.items():
        number = _number(value)
        if name in KNOWN_MEMBERS:
            low, high, integral = KNOWN_MEMBERS[name]
            if number is None:
                return f"activity_data.{name} must be a number"
            if not low <= number <= high:
                return f"activity_data.{name} must be between {low} and {high}"
            if integral and number != number.to_integral_value():
                return f"activity_data.{name} must be an integer"
        elif number is not None and abs(number) > OTHER_LIMIT:
            return f"activity_data.{name} is out of range"
    return None


def reward_units(
    activity_data: dict[str, Any],
    multiplier: Decimal,
    decimals: int,
    formula: RewardFormula,
) -> int:
    """The reward in base units (0 when the numbers are out of bounds)."""
    if bounds_problem(activity_data) is not None:
        return 0
    f = formula

    def member(name: str) -> Decimal:
        return _number(activity_data.get(name, 0)) or Decimal(0)

    mcd = (
        f.base
        + f.per_volume * member("trade_volume_usdc")
        + f.per_trade * member("trade_count")
        + f.per_profit * max(member("profit_usdc"), Decimal(0))
    ) * multiplier
    units = (mcd * (Decimal(10) ** decimals)).quantize(Decimal(1), rounding=ROUND_DOWN)
    return max(int(units), 0)
