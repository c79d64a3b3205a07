"""The one domain error base: every refusal a client can see carries a slug and an HTTP status.

Each capability subclasses ``DomainError`` (or raises it with a slug); ``api.errors`` renders
any of them as an RFC 7807 problem body with one handler. Services raise them without knowing
about HTTP beyond the status number.
"""

from __future__ import annotations

from typing import Any


def title_of(slug: str) -> str:
    return slug.replace("-", " ").capitalize()


class DomainError(Exception):
    """A refusal with a stable slug and an HTTP status; nothing was written by the request."""

    status: int = 400
    slug: str = "bad-request"

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        slug: str | None = None,
        title: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        if status is not None:
            self.status = status
        if slug is not None:
            self.slug = slug
        self.title = title or title_of(self.slug)
        self.headers = headers or {}
        self.extra = extra


class NotFound(DomainError):
    status, slug = 404, "not-found"


class InvalidState(DomainError):
    status, slug = 409, "invalid-state"


class ServiceUnavailable(DomainError):
    status, slug = 503, "service-unavailable"


class Rejected(DomainError):
    """A business refusal of a service (default 422); nothing was written (the caller rolls
    back). Each service names its own subclass so its activities catch only their own."""

    status = 422

    def __init__(self, detail: str, *, slug: str, status: int = 422, **extra: Any) -> None:
        super().__init__(detail, status=status, slug=slug, **extra)
