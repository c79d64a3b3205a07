"""The refusals of a mining submission, each a ``DomainError`` (slug + status) rendered once by
``api.errors``; a batch puts them in its item results instead of raising them."""

from __future__ import annotations

from core.errors import DomainError
from engine import limits


class KeyReused(DomainError):
    status, slug = 409, "idempotency-key-reused"

    def __init__(self) -> None:
        super().__init__("This idempotency_key was already used for another mining activity")


class UserNotAuthorized(DomainError):
    status, slug = 403, "user-not-authorized-for-project"

    def __init__(self, user_uid: str, project_id: int) -> None:
        super().__init__(f"User {user_uid} has not authorized project {project_id}")


class InvalidSubmission(DomainError):
    status, slug = 422, "validation-error"


def limit_refused(exc: limits.LimitExceeded) -> DomainError:
    """An engine limit refusal as the problem the client sees (its own slug, the limit)."""
    return DomainError(str(exc), status=422, slug=exc.slug, limit=exc.limit)
