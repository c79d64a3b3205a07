"""Business rejections of the engine: ``DomainError``s with the problem slug and HTTP status
they are rendered with (one handler in ``api.errors``)."""

from __future__ import annotations

from typing import Any

from core.errors import DomainError


class Rejected(DomainError):
    """A request the engine refuses; nothing was written (the caller rolls back)."""

    status = 422

    def __init__(self, detail: str, *, slug: str, status: int = 422, **extra: Any) -> None:
        super().__init__(detail, status=status, slug=slug, **extra)


def not_found(what: str) -> Rejected:
    return Rejected(f"{what} not found", slug="not-found", status=404)


def invalid_state(detail: str, **extra: Any) -> Rejected:
    return Rejected(detail, slug="invalid-state", status=409, **extra)
