"""Business rejections of the engine, with the problem slug and HTTP status they map to."""

from __future__ import annotations

from typing import Any


class Rejected(Exception):
    """A request the engine refuses; nothing was written (the caller rolls back)."""

    def __init__(self, detail: str, *, slug: str, status: int = 422, **extra: Any) -> None:
        super().__init__(detail)
        self.detail, self.slug, self.status, self.extra = detail, slug, status, extra


def not_found(what: str) -> Rejected:
    return Rejected(f"{what} not found", slug="not-found", status=404)


def invalid_state(detail: str, **extra: Any) -> Rejected:
    return Rejected(detail, slug="invalid-state", status=409, **extra)
