"""The fresh sign-in rule, written once: a sensitive action (changing the wallet withdrawals go
to; issue 44 adds secret rolls and admin grants) needs an access token of the gateway's own
first-party client whose user signed in, with their password, at most ``max_age_seconds``
ago. A project's client never qualifies, however recent its sign-in: the action must be taken
on the gateway's own pages, where a project cannot act for the user.

The age is the token's ``auth_time`` claim (RFC 9068): the authorization server sets it to the
sign-in that made the grant and keeps it through refreshes, so refreshing a token never makes
it fresh again. A token without ``auth_time`` is never fresh.

The refusal is RFC 9470's step-up answer: 401 with ``WWW-Authenticate: Bearer
error="insufficient_user_authentication", max_age=N``, as the problem
``fresh-sign-in-required`` (``max_age`` in it too): sign in again and repeat the call. A route
that always needs one declares it (``access.callers`` ``fresh_seconds``, judged by
``signed_in_within`` here); a route that needs it for one field only calls
``require_fresh_signin``.
"""

from __future__ import annotations

import time
from typing import Protocol

from core.errors import DomainError

# An auth_time this far in the future is a clock difference, not a forgery (the server signs it).
CLOCK_SKEW_SECONDS = 60


class SignedIn(Protocol):
    """What the rule reads of a user's access token (``api.auth.principal.UserPrincipal``)."""

    @property
    def first_party(self) -> bool: ...

    @property
    def auth_time(self) -> int | None: ...


class FreshSignInRequired(DomainError):
    status, slug = 401, "fresh-sign-in-required"


def signed_in_within(principal: SignedIn, max_age_seconds: float, now: float | None = None) -> bool:
    """Whether the token is the gateway's own client's, signed in at most ``max_age_seconds``
    ago."""
    if not principal.first_party or principal.auth_time is None:
        return False
    age = (time.time() if now is None else now) - principal.auth_time
    return -CLOCK_SKEW_SECONDS <= age <= max_age_seconds


def require_fresh_signin(
    principal: SignedIn, max_age_seconds: float, *, action: str = "This action"
) -> None:
    """Refuse (401 ``fresh-sign-in-required``) unless ``signed_in_within``."""
    if signed_in_within(principal, max_age_seconds):
        return
    max_age = int(max_age_seconds)
    if not principal.first_party:
        why = "a token of the gateway's own sign-in (a project's app cannot do this for you)"
    else:
        why = f"a sign-in within the last {max_age} seconds"
    raise FreshSignInRequired(
        f"{action} needs {why}: sign in again at the gateway and repeat the call",
        headers={
            "WWW-Authenticate": (
                f'Bearer error="insufficient_user_authentication", max_age={max_age}'
            )
        },
        max_age=max_age,
    )
