"""Credentials as the API reads them: the OpenAPI security schemes (read by a route's
declaration, ``api.auth.declaration.Callers``) and a bearer token's verified claims, turned into
the principal a route acts for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.security import APIKeyHeader, OAuth2AuthorizationCodeBearer

from access.scopes import USER_SCOPES, expand
from api.auth.principal import UserPrincipal
from api.auth.tokens import AuthServerUnavailable, InvalidToken, TokenVerifier
from api.ratelimit import AUTH_SCHEMES, enforce_ip
from core.errors import DomainError, ServiceUnavailable

oauth2_scheme = OAuth2AuthorizationCodeBearer(
    authorizationUrl="/auth/oauth/authorize",
    tokenUrl="/auth/oauth/token",
    refreshUrl="/auth/oauth/token",
    scopes=USER_SCOPES,
    scheme_name="OAuth2",
    description="User calls: authorization code with PKCE (S256); 1-hour RS256 JWTs.",
    auto_error=False,
)
project_id_header = APIKeyHeader(
    name="X-Project-ID", scheme_name="ProjectId", auto_error=False,
    description="Project calls: the project identifier (with X-API-Key or X-Signature).",
)  # fmt: skip
api_key_header = APIKeyHeader(
    name="X-API-Key", scheme_name="ApiKey", auto_error=False,
    description="The project's api_secret (its SHA-256 is compared in constant time).",
)  # fmt: skip
signature_header = APIKeyHeader(
    name="X-Signature", scheme_name="Signature", auto_error=False,
    description="sha256=<hex HMAC-SHA256> of METHOD\\nPATH\\nTIMESTAMP\\nBODY, with X-Timestamp.",
)  # fmt: skip


# A route that depends on any of these reads credentials and counts its requests itself.
AUTH_SCHEMES.update((oauth2_scheme, project_id_header, api_key_header, signature_header))


def unauthorized(
    detail: str, error: str = "invalid_token", slug: str = "unauthorized"
) -> DomainError:
    return DomainError(
        detail,
        status=401,
        slug=slug,
        headers={"WWW-Authenticate": f'Bearer error="{error}"' if error else "Bearer"},
    )


def verifier_of(request: Request) -> TokenVerifier:
    verifier: TokenVerifier = request.app.state.token_verifier
    return verifier


@dataclass(frozen=True, slots=True)
class Verified:
    """A bearer token whose signature (or introspection), issuer, audience and expiry held."""

    claims: dict[str, Any]
    id_token: bool
    # A JWT access token: its jti must still be checked against the revocation list.
    revocable: bool


async def verified_bearer(request: Request, token: str | None, *, id_tokens: bool) -> Verified:
    """The token's claims, or 401 (counted against the caller's source). An opaque token the
    process has not seen is counted against the caller's source *before* it is introspected:
    a flood of made-up tokens spends its sender's budget, not the authorization server's."""
    if not token:
        await enforce_ip(request)
        raise unauthorized("A bearer token is required", error="")
    verifier = verifier_of(request)
    try:
        if id_tokens and verifier.is_id_token(token):
            return Verified(await verifier.id_token(token), True, False)
        claims, revocable = await verifier.access_claims(
            token, before_introspection=lambda: enforce_ip(request)
        )
        return Verified(claims, False, revocable)
    except InvalidToken as exc:
        await enforce_ip(request)
        raise unauthorized(str(exc)) from exc
    except AuthServerUnavailable as exc:
        raise ServiceUnavailable(
            "The authorization server is unreachable", headers={"Retry-After": "5"}
        ) from exc


def _project_of(claims: dict[str, Any]) -> int | None:
    project = str(claims.get("project_id") or "")
    return int(project) if project.isascii() and project.isdecimal() else None


def _auth_time(claims: dict[str, Any]) -> int | None:
    value = claims.get("auth_time")
    return int(value) if isinstance(value, int | float) else None


def principal_from_claims(claims: dict[str, Any]) -> UserPrincipal:
    """The user behind an access token of this API."""
    return UserPrincipal(
        uid=str(claims["sub"]),
        role=str(claims.get("role") or "user"),
        scopes=expand(str(claims.get("scope") or "").split()),
        client_id=claims.get("client_id"),
        project_id=_project_of(claims),
        token_id=claims.get("jti"),
        first_party=claims.get("first_party") is True,
        auth_time=_auth_time(claims),
    )


def id_token_principal(claims: dict[str, Any]) -> UserPrincipal:
    """The user behind an ID token. It carries no ``scope`` claim: what it was granted shows in
    its claims (the AS puts ``email`` in only for the ``email`` scope, the names only for
    ``profile``); its client is its audience."""
    audience = claims.get("aud")
    client = audience[0] if isinstance(audience, list) and audience else audience
    scopes = {"openid"}
    if "email" in claims:
        scopes.add("email")
    if "preferred_username" in claims or "name" in claims:
        scopes.add("profile")
    return UserPrincipal(
        uid=str(claims["sub"]),
        role=str(claims.get("role") or "user"),
        scopes=expand(scopes),
        client_id=str(client) if client else None,
        project_id=_project_of(claims),
        first_party=claims.get("first_party") is True,
        auth_time=_auth_time(claims),
        id_token=True,
    )
