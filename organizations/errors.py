"""Business rejections of the organizations service: ``DomainError``s, rendered by the one
handler in ``api.errors``."""

from __future__ import annotations

from core.errors import Rejected


class OrgRejected(Rejected):
    """A request the service refuses; nothing was written (the caller rolls back). Named for
    this service: its activities catch only their own."""


def not_found(what: str) -> OrgRejected:
    return OrgRejected(f"{what} does not exist", slug="not-found", status=404)
