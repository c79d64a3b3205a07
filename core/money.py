"""Amounts: decimal strings on the wire, integer base units everywhere else. Never floats."""

from __future__ import annotations

import re

# Digits, an optional fraction; no sign, exponent, spaces, NaN or infinity.
_AMOUNT = re.compile(r"(0|[1-9][0-9]*)(?:\.([0-9]+))?")
# The largest amount in base units: PostgreSQL's BIGINT (SPL's u64 is larger still).
MAX_UNITS = 2**63 - 1
_MAX_TEXT = 60  # characters: far past any representable amount, far below int()'s limit


class InvalidAmount(ValueError):
    """The text is not an amount this mint can represent."""


def to_base_units(text: str, decimals: int, *, allow_zero: bool = False) -> int:
    """Parse ``"12.5"`` into base units (``12_500_000_000`` with 9 decimals)."""
    if not isinstance(text, str):
        raise InvalidAmount('amount must be a decimal string such as "12.5"')
    if len(text) > _MAX_TEXT:
        raise InvalidAmount(f"amount has more than {_MAX_TEXT} characters")
    match = _AMOUNT.fullmatch(text)  # a trailing newline or space is refused too
    if match is None:
        raise InvalidAmount(
            f"{text!r} is not a decimal amount: use digits with an optional fraction, "
            "no sign, exponent or spaces"
        )
    whole, fraction = match.group(1), match.group(2) or ""
    if len(fraction) > decimals:
        raise InvalidAmount(f"{text!r} has more than {decimals} fractional digits")
    units = int(whole) * 10**decimals + int(fraction.ljust(decimals, "0") or "0")
    if units > MAX_UNITS:
        raise InvalidAmount(f"{text!r} is larger than the largest amount the ledger holds")
    if units == 0 and not allow_zero:
        raise InvalidAmount("amount must be greater than zero")
    return units


def to_decimal_string(units: int, decimals: int) -> str:
    """Format base units as the shortest exact decimal string (``"12.5"``, ``"0"``)."""
    sign = "-" if units < 0 else ""
    whole, fraction = divmod(abs(units), 10**decimals)
    text = f"{whole}.{fraction:0{decimals}d}".rstrip("0").rstrip(".") if decimals else str(whole)
    return sign + text
