"""Helpers the money routes share: parsing an amount in its currency's own decimals, the record
id derived from an idempotency key, and the problems they document."""

from __future__ import annotations

import hashlib
from typing import Literal, overload

from api.errors import invalid_field
from api.openapi import problems
from chain.decimals import TokenDecimals
from core.money import InvalidAmount, to_decimal_string
from tokens.prices import USDC_DECIMALS

Currency = Literal["MCC", "MCD"]

# The problems of the fund-lock and transfer routes.
MONEY_PROBLEMS = problems(
    429,
    caller="project-for-user",
    s409="`idempotency-key-reused` / `idempotency-key-in-use` / `invalid-state`",
    s422="`validation-error`, `invalid-amount`, `insufficient-funds`, "
    "`amount-limit-exceeded`, `daily-limit-exceeded`",
)


def parse_amount(text: str, decimals: TokenDecimals, currency: str, field: str = "amount") -> int:
    """A decimal string in base units of ``currency``'s own mint; 422 ``invalid-amount``."""
    try:
        return decimals.parse(text, currency)
    except InvalidAmount as exc:
        raise invalid_field(field, str(exc), slug="invalid-amount") from exc


def derived_id(prefix: str, workflow_id: str) -> str:
    """A record id derived from the (scope, idempotency key) workflow id."""
    return f"{prefix}_{hashlib.sha256(workflow_id.encode()).hexdigest()[:32]}"


@overload
def usdc(units: int) -> str: ...
@overload
def usdc(units: None) -> None: ...
def usdc(units: int | None) -> str | None:
    """USDC base units as a decimal string (None stays None)."""
    return None if units is None else to_decimal_string(units, USDC_DECIMALS)
