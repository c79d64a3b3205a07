"""Who may call a route, declared once per route, and the audience rule that decides it.

A route declares the kinds of caller it accepts as one ``Callers(...)`` of ``Accept``s. The API
enforces that declaration (``api.auth.declaration.Callers``: the declaration *is* the route's
FastAPI dependency) and publishes it in the route's OpenAPI operation as ``x-callers``; the
authorization matrix (``tests/access/test_matrix.py``) and the table of docs/security.md are
read from there, so what is enforced, tested and documented is one object.

The audience rule: a credential speaks only for whom it was issued to. A project's key is that
project; a user's access token of client X acts within the scopes the user granted X, and is
never proof of anything about another project; only a token of the gateway's own first-party
client (the console, ``mccgw token``, the API docs' sign-in) speaks for the person themself:
their projects (onboarding, the owner's operations) and, with the role ``admin``, the gateway.

This module is the rule alone (no HTTP): the kinds, what each one accepts (``admit``), and how
a declaration is written down. The authorization server's endpoints declare here too (their
OAuth clients are authenticated by authlib).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from access.fresh import signed_in_within
from access.scopes import expand, missing_scope


class Kind(StrEnum):
    ANYONE = "anyone"
    PROJECT = "project"
    USER = "user"
    ID_TOKEN = "id-token"
    DEVELOPER = "developer"
    ADMIN = "admin"
    OAUTH_CLIENT = "oauth-client"


# What each kind accepts, in the words of docs/security.md's table (generated from this).
KIND_TEXT: dict[Kind, str] = {
    Kind.ANYONE: "anyone: no credentials are read",
    Kind.PROJECT: "a project's own credentials (X-API-Key, X-Signature or X-Project-Signature) "
    "with these project scopes",
    Kind.USER: "a user's access token of any client, holding these scopes; it acts for the "
    "project of its client only",
    Kind.ID_TOKEN: "as `user`, or an ID token: of the gateway's first-party client, or of a "
    "project's client whose project the user granted these scopes",
    Kind.DEVELOPER: "a token (access or ID) of the gateway's first-party client: the person "
    "themself (their applications, the projects they own)",
    Kind.ADMIN: "a first-party access token of a user with the role admin",
    Kind.OAUTH_CLIENT: "an OAuth client authenticating itself (RFC 6749 2.3), at the "
    "authorization server",
}
# The kinds a bearer token can meet, and those an ID token can meet.
TOKEN_KINDS = frozenset({Kind.USER, Kind.ID_TOKEN, Kind.DEVELOPER, Kind.ADMIN})
ID_TOKEN_KINDS = frozenset({Kind.ID_TOKEN, Kind.DEVELOPER})


@dataclass(frozen=True, slots=True)
class Accept:
    """One kind of caller a route accepts. ``scopes``: what the credential must hold (the
    project's allowed scopes, or the user's grant). ``fresh_seconds``: on the first-party kinds,
    the person must have signed in (``auth_time``) at most this long ago."""

    kind: Kind
    scopes: tuple[str, ...] = ()
    fresh_seconds: int | None = None

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"kind": self.kind.value}
        if self.scopes:
            described["scopes"] = list(self.scopes)
        if self.fresh_seconds is not None:
            described["fresh_seconds"] = self.fresh_seconds
        return described


def anyone() -> Accept:
    return Accept(Kind.ANYONE)


def project(*scopes: str) -> Accept:
    return Accept(Kind.PROJECT, scopes)


def user(*scopes: str) -> Accept:
    return Accept(Kind.USER, scopes)


def id_token(*scopes: str) -> Accept:
    """The legacy routes' form: a user's access token as ``user``, or an ID token."""
    return Accept(Kind.ID_TOKEN, scopes)


def developer(*, fresh_seconds: int | None = None) -> Accept:
    return Accept(Kind.DEVELOPER, (), fresh_seconds)


def admin(*scopes: str, fresh_seconds: int | None = None) -> Accept:
    return Accept(Kind.ADMIN, scopes, fresh_seconds)


def oauth_client() -> Accept:
    return Accept(Kind.OAUTH_CLIENT)


class Declaration:
    """A route's callers. Used as the route's dependency (``Depends(Declaration(...))``) where
    nothing is read here: the authorization server's endpoints, whose OAuth clients authlib
    authenticates. The API's routes use the enforcing subclass, ``api.auth.declaration.Callers``.
    """

    def __init__(self, *accepts: Accept) -> None:
        if not accepts:
            raise ValueError("a declaration accepts at least one kind of caller")
        kinds = [a.kind for a in accepts]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"a kind is declared twice: {kinds}")
        if Kind.ANYONE in kinds and len(kinds) > 1:
            raise ValueError("`anyone` reads no credentials: it stands alone")
        self.accepts = tuple(accepts)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.accepts))})"

    def describe(self) -> list[dict[str, Any]]:
        """The ``x-callers`` of the route's OpenAPI operation."""
        return [a.describe() for a in self.accepts]

    def accepting(self, *kinds: Kind) -> list[Accept]:
        return [a for a in self.accepts if a.kind in kinds]

    async def __call__(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Bearer:
    """What a verified bearer token shows, for ``admit``."""

    id_token: bool  # an OIDC ID token (else an access token of this API)
    first_party: bool  # issued to the gateway's own client
    role: str
    scopes: frozenset[str]  # an access token's scope; an ID token's: what it shows (openid, ...)
    # An ID token of a project's client: the scopes the user granted that project (None: none).
    granted: frozenset[str] | None = None
    auth_time: int | None = None

    @property
    def is_admin(self) -> bool:
        return self.role == "admin" and self.first_party


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int
    slug: str
    detail: str
    scope: str | None = None


def _fresh(accept: Accept, bearer: Bearer, now: float) -> bool:
    limit = accept.fresh_seconds
    return limit is None or signed_in_within(bearer, limit, now)


def _refusal(accept: Accept, bearer: Bearer, now: float) -> Refusal | None:
    """Why ``bearer`` does not meet ``accept`` (None: it does)."""
    kind = accept.kind
    if bearer.id_token and kind not in ID_TOKEN_KINDS:
        return Refusal(401, "unauthorized", "Not an access token (an ID token cannot call here)")
    if kind is Kind.DEVELOPER and not bearer.first_party:
        return Refusal(
            403,
            "first-party-required",
            "This call takes a token of the gateway's own sign-in (its first-party client), "
            "never one issued to a project's client",
        )
    if kind is Kind.ADMIN and not bearer.is_admin:
        if scope := missing_scope(bearer.scopes, accept.scopes, admin=False):
            # As any scoped route answers a token without its scope (then: admin-required).
            return Refusal(403, "insufficient-scope", f"This call needs the scope {scope}", scope)
        detail = "This call is for administrators (role admin)"
        if bearer.role == "admin":
            detail += ", signed in to the gateway itself: a project's client holds no admin power"
        return Refusal(403, "admin-required", detail)
    if not _fresh(accept, bearer, now):
        return Refusal(
            401,
            "fresh-sign-in-required",
            f"This call needs a sign-in within the last {accept.fresh_seconds} s",
        )
    if kind is Kind.ID_TOKEN and bearer.id_token:
        if bearer.first_party:
            return None  # the person's own sign-in to the gateway
        granted = expand(bearer.granted or ())
        if scope := missing_scope(granted, accept.scopes, admin=False):
            return Refusal(
                403,
                "insufficient-scope",
                f"The user has not granted this token's client the scope {scope}",
                scope,
            )
        return None
    if kind in (Kind.USER, Kind.ID_TOKEN, Kind.ADMIN) and (
        scope := missing_scope(bearer.scopes, accept.scopes, admin=bearer.is_admin)
    ):
        return Refusal(403, "insufficient-scope", f"This call needs the scope {scope}", scope)
    return None


# When nothing admits a token, the refusal that explains it best: the wrong kind of token
# first, then the wrong client, the role, the sign-in's age, the scope.
_ORDER = ("unauthorized", "first-party-required", "admin-required", "fresh-sign-in-required")


def admit(accepts: Sequence[Accept], bearer: Bearer, now: float) -> Accept | Refusal:
    """The first of ``accepts`` (the token kinds of a declaration) that ``bearer`` meets, or
    the refusal that explains best why none does."""
    refusals: list[Refusal] = []
    for accept in accepts:
        refusal = _refusal(accept, bearer, now)
        if refusal is None:
            return accept
        refusals.append(refusal)
    if not refusals:
        return Refusal(401, "unauthorized", "This call takes no bearer token")
    rank = {slug: i for i, slug in enumerate(_ORDER)}
    # The most specific refusal: the last in _ORDER (a scope last of all) among those met.
    return max(refusals, key=lambda r: rank.get(r.slug, len(_ORDER)))
