"""Why a view cannot answer: ``DomainError``s with the problem slug and HTTP status each maps
to (rendered by the one handler in ``api.errors``). A chain that does not answer is the chain's
own ``chain.errors.ChainUnavailable``, which ``api.errors`` answers with its one 503."""

from __future__ import annotations

from typing import Any

from core.errors import DomainError


class ViewError(DomainError):
    def __init__(self, detail: str, *, slug: str, status: int, **extra: Any) -> None:
        # A 503 tells the client when to come back (the snapshot is refreshed within a second).
        headers = {"Retry-After": "1"} if status == 503 else None
        super().__init__(detail, status=status, slug=slug, headers=headers, **extra)


def not_found(what: str) -> ViewError:
    return ViewError(f"{what} does not exist on chain", slug="not-found", status=404)


def invalid(field: str, message: str) -> ViewError:
    return ViewError(
        f"Invalid request: {field}: {message}",
        slug="validation-error",
        status=422,
        errors=[{"field": field, "message": message}],
    )
