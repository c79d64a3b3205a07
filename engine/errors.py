"""Business rejections of the engine: ``DomainError``s with the problem slug and HTTP status
they are rendered with (one handler in ``api.errors``)."""

from __future__ import annotations

from typing import Any

from chain.decimals import TokenDecimals
from core.errors import Rejected
from ledger.service import InsufficientFunds

__all__ = [
    "Rejected", "insufficient", "invalid_state", "not_found", "same_user", "unknown_recipient",
]  # fmt: skip


def not_found(what: str) -> Rejected:
    return Rejected(f"{what} not found", slug="not-found", status=404)


def invalid_state(detail: str, **extra: Any) -> Rejected:
    return Rejected(detail, slug="invalid-state", status=409, **extra)


def insufficient(exc: InsufficientFunds, decimals: TokenDecimals) -> Rejected:
    """The ledger's refusal, with the amounts in the mint's decimal units."""
    available = decimals.format(exc.available, exc.currency)
    return Rejected(
        f"{exc.user_uid} has {available} {exc.currency} "
        f"available, {decimals.format(exc.requested, exc.currency)} needed",
        slug="insufficient-funds",
        available_balance=available,
    )


def same_user() -> Rejected:
    return Rejected(
        "from_uid and to_uid must differ",
        slug="validation-error",
        errors=[{"field": "to_uid", "message": "must differ from from_uid"}],
    )


def unknown_recipient(uid: str) -> Rejected:
    return Rejected(
        f"Unknown user {uid}",
        slug="validation-error",
        errors=[{"field": "to_uid", "message": "unknown user"}],
    )
