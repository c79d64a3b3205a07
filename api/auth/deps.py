"""FastAPI dependencies: ``Security(current_user, scopes=[...])`` and
``Security(current_project, scopes=[...])``; the OpenAPI security schemes come with them."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, OAuth2AuthorizationCodeBearer, SecurityScopes

from access.ratelimit import USER_LIMIT, Revoked
from access.scopes import USER_SCOPES, expand, missing_scope
from api.auth.principal import ProjectPrincipal, UserPrincipal
from api.auth.project import ProjectAuthenticator
from api.auth.tokens import AuthServerUnavailable, InvalidToken, TokenVerifier
from api.ratelimit import AUTH_SCHEMES, enforce, enforce_ip
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


def _unauthorized(detail: str) -> DomainError:
    return DomainError(
        detail,
        status=401,
        slug="unauthorized",
        headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
    )


def _verifier(request: Request) -> TokenVerifier:
    verifier: TokenVerifier = request.app.state.token_verifier
    return verifier


async def _claims(
    request: Request, token: str | None, *, id_token: bool
) -> tuple[dict[str, Any], bool]:
    """(claims, revocable): for an access token whose revocation the caller checks."""
    if not token:
        await enforce_ip(request)
        raise DomainError(
            "A bearer token is required",
            status=401,
            slug="unauthorized",
            headers={"WWW-Authenticate": "Bearer"},
        )
    verifier = _verifier(request)
    try:
        if id_token:
            return await verifier.id_token(token), False
        return await verifier.access_claims(token)
    except InvalidToken as exc:
        await enforce_ip(request)
        raise _unauthorized(str(exc)) from exc
    except AuthServerUnavailable as exc:
        raise ServiceUnavailable(
            "The authorization server is unreachable", headers={"Retry-After": "5"}
        ) from exc


def principal_from_claims(claims: dict[str, Any]) -> UserPrincipal:
    project = str(claims.get("project_id") or "")
    return UserPrincipal(
        uid=str(claims["sub"]),
        role=str(claims.get("role") or "user"),
        scopes=expand(str(claims.get("scope") or "").split()),
        client_id=claims.get("client_id"),
        project_id=int(project) if project.isdigit() else None,
        token_id=claims.get("jti"),
        first_party=claims.get("first_party") is True,
        auth_time=_auth_time(claims.get("auth_time")),
    )


def _auth_time(value: Any) -> int | None:
    # A JSON number of seconds; anything else says nothing (never a fresh sign-in).
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


async def current_user(
    security_scopes: SecurityScopes,
    request: Request,
    token: str | None = Depends(oauth2_scheme),
) -> UserPrincipal:
    """The user behind a valid bearer access token, holding every scope the route needs."""
    claims, revocable = await _claims(request, token, id_token=False)
    principal = principal_from_claims(claims)
    # The revocation check rides in the rate limit's round trip (one Redis call, not two).
    revoked_key = _verifier(request).revocation_key(claims) if revocable else None
    try:
        await enforce(request, principal.rate_key, USER_LIMIT, revoked_key=revoked_key)
    except Revoked as exc:
        raise _unauthorized("The token has been revoked") from exc
    if scope := missing_scope(principal.scopes, security_scopes.scopes, admin=principal.is_admin):
        raise DomainError(
            f"This call needs the scope {scope}",
            status=403,
            slug="insufficient-scope",
            headers={"WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{scope}"'},
            required_scope=scope,
        )
    request.state.principal = principal
    return principal


def _id_token_principal(claims: dict[str, Any]) -> UserPrincipal:
    """An ID token carries no ``scope`` claim: what it was granted shows in its claims (the
    AS puts ``email`` in only for the ``email`` scope, the names only for ``profile``)."""
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
    )


async def id_token_user(
    request: Request, token: str | None = Depends(oauth2_scheme)
) -> UserPrincipal:
    """Legacy and developer-onboarding routes: the identity provider's ID token, or an access
    token of this API. Either kind is checked against the revocation list (access.revocation):
    an access token by its jti, in the rate limit's round trip; an ID token by its subject's
    mark (any revocation of the user's tokens at that client since it was issued)."""
    claims, _ = await _claims(request, token, id_token=True)
    access = "jti" in claims and "scope" in claims
    principal = principal_from_claims(claims) if access else _id_token_principal(claims)
    verifier = _verifier(request)
    revoked_key = verifier.revocation_key(claims) if access else None
    try:
        await enforce(request, principal.rate_key, USER_LIMIT, revoked_key=revoked_key)
        if not access and principal.client_id and await verifier.id_token_revoked(claims):
            raise Revoked
    except Revoked as exc:
        raise _unauthorized("The token has been revoked") from exc
    request.state.principal = principal
    return principal


async def current_project(
    security_scopes: SecurityScopes,
    request: Request,
    _project_id: str | None = Depends(project_id_header),
    _api_key: str | None = Depends(api_key_header),
    _signature: str | None = Depends(signature_header),
) -> ProjectPrincipal:
    """The project behind valid project credentials, holding every scope the route needs."""
    authenticator: ProjectAuthenticator = request.app.state.project_authenticator
    principal = await authenticator.authenticate(request, list(security_scopes.scopes))
    request.state.principal = principal
    return principal
