"""Amounts: decimal strings on the wire, integer base units everywhere else. Never floats."""

from __future__ import annotations

import re

# Digits, an optional fraction; no sign, exponent, spaces, NaN or infinity.
_AMOUNT = re.compile(r"^(0|[1-9][0-9]*)(?:\.([0-9]+))?$")


class InvalidAmount(ValueError):
    """The text is not an amount this mint can represent."""


def to_base_units(text: str, decimals: int, *, allow_zero: bool = False) -> int:
    """Parse ``"12.5"`` into base units (``12_500_000_000`` with 9 decimals)."""
    if not isinstance(text, str):
        raise InvalidAmount('amount must be a decimal string such as "12.5"')
    match = _AMOUNT.match(text)
    if match is None:
        raise InvalidAmount(
            f"{text!r} is not a decimal amount: use digits with an optional fraction, "
            "no sign, exponent or spaces"
        )
    whole, fraction = match.group(1), match.group(2) or ""
    if len(fraction) > decimals:
        raise InvalidAmount(f"{text!r} has more than {decimals} fractional digits")
    units = int(whole) * 10**decimals + int(fraction.ljust(decimals, "0") or "0")
    if units == 0 and not allow_zero:
        raise InvalidAmount("amount must be greater than zero")
    return units


def to_decimal_string(units: int, decimals: int) -> str:
    """Format base units as the shortest exact decimal string (``"12.5"``, ``"0"``)."""
    sign = "-" if units < 0 else ""
    whole, fraction = divmod(abs(units), 10**decimals)
    text = f"{whole}.{fraction:0{decimals}d}".rstrip("0").rstrip(".") if decimals else str(whole)
    return sign + text
