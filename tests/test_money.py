"""Amount parsing is exact and strict."""

from __future__ import annotations

import pytest

from core.money import InvalidAmount, to_base_units, to_decimal_string


@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("1", 1_000_000_000),
        ("12.5", 12_500_000_000),
        ("0.000000001", 1),
        ("10000", 10_000_000_000_000),
        ("123456789.123456789", 123_456_789_123_456_789),
    ],
)
def test_parses_exactly(text: str, units: int) -> None:
    assert to_base_units(text, 9) == units
    assert to_decimal_string(units, 9) == text


@pytest.mark.parametrize(
    "text",
    ["-1", "1e3", "NaN", "inf", " 1", "1.", ".5", "01", "0.0000000001", "1,5", "", "0", "0.0"],
)
def test_rejects(text: str) -> None:
    with pytest.raises(InvalidAmount):
        to_base_units(text, 9)


def test_zero_only_when_allowed() -> None:
    assert to_base_units("0", 9, allow_zero=True) == 0


def test_rejects_non_strings() -> None:
    with pytest.raises(InvalidAmount):
        to_base_units(1.5, 9)  # type: ignore[arg-type]


def test_formats_negative_and_zero() -> None:
    assert to_decimal_string(0, 9) == "0"
    assert to_decimal_string(-1_500_000_000, 9) == "-1.5"
