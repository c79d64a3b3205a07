"""Why a view cannot answer, with the problem slug and HTTP status each maps to."""

from __future__ import annotations

from typing import Any


class ViewError(Exception):
    def __init__(self, detail: str, *, slug: str, status: int, **extra: Any) -> None:
        super().__init__(detail)
        self.detail, self.slug, self.status, self.extra = detail, slug, status, extra


def not_found(what: str) -> ViewError:
    return ViewError(f"{what} does not exist on chain", slug="not-found", status=404)


def invalid(field: str, message: str) -> ViewError:
    return ViewError(
        f"Invalid request: {field}: {message}",
        slug="validation-error",
        status=422,
        errors=[{"field": field, "message": message}],
    )


class ChainUnavailable(ViewError):
    def __init__(self, detail: str) -> None:
        super().__init__(
            f"The chain RPC is unavailable: {detail}. Retry the request.",
            slug="service-unavailable",
            status=503,
        )
