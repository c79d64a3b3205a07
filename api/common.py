"""Helpers the money routes share: each mint's own decimals (amounts are written with their
currency's), parsing an amount,
the record id derived from an idempotency key, and the problems they document."""

from __future__ import annotations

import hashlib
from typing import Literal, overload

from fastapi import Request

from api.deps import mint_decimals
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


def decimals(request: Request) -> TokenDecimals:
    """Each mint's own decimals, read from the mints (api.deps.mint_decimals)."""
    return mint_decimals(request)


def parse_amount(text: str, request: Request, currency: str, field: str = "amount") -> int:
    """A decimal string in base units of ``currency``'s own mint; 422 ``invalid-amount``."""
    try:
        return decimals(request).parse(text, currency)
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
