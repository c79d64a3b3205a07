"""Business rejections of the organizations service (the route maps them to problems)."""

from __future__ import annotations

from typing import Any


class OrgRejected(Exception):
    """A request the service refuses; nothing was written (the caller rolls back)."""

    def __init__(self, detail: str, *, slug: str, status: int = 422, **extra: Any) -> None:
        super().__init__(detail)
        self.detail, self.slug, self.status, self.extra = detail, slug, status, extra


def not_found(what: str) -> OrgRejected:
    return OrgRejected(f"{what} does not exist", slug="not-found", status=404)
