"""Business rejections of the organizations service: ``DomainError``s, rendered by the one
handler in ``api.errors``."""

from __future__ import annotations

from typing import Any

from core.errors import DomainError


class OrgRejected(DomainError):
    """A request the service refuses; nothing was written (the caller rolls back)."""

    status = 422

    def __init__(self, detail: str, *, slug: str, status: int = 422, **extra: Any) -> None:
        super().__init__(detail, status=status, slug=slug, **extra)


def not_found(what: str) -> OrgRejected:
    return OrgRejected(f"{what} does not exist", slug="not-found", status=404)
