"""Business rejections of the engine: ``DomainError``s with the problem slug and HTTP status
they are rendered with (one handler in ``api.errors``)."""

from __future__ import annotations

from typing import Any

from core.errors import Rejected

__all__ = ["Rejected", "invalid_state", "not_found"]


def not_found(what: str) -> Rejected:
    return Rejected(f"{what} not found", slug="not-found", status=404)


def invalid_state(detail: str, **extra: Any) -> Rejected:
    return Rejected(detail, slug="invalid-state", status=409, **extra)
