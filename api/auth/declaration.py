"""A route's callers, declared once and enforced by that same object.

``Callers(...)`` (``access.callers`` holds the kinds and the audience rule) is the route's
FastAPI dependency: it reads exactly the credentials its kinds need (so the OpenAPI document
lists those security schemes and scopes), decides, counts the request, and answers the
principal. ``install_declarations`` copies each route's declaration into its OpenAPI operation
as ``x-callers``; ``declarations`` lists them for the tests and docs/security.md's table. A
route in the OpenAPI document without a declaration fails ``tests/api/test_declarations.py``.

A new route declares its callers by taking a principal through a ``Callers``::

    from access.callers import project, user
    from api.auth.declaration import Callers

    Players = Annotated[UserPrincipal | ProjectPrincipal,
                        Depends(Callers(user("mining:read"), project("mining:read")))]

    @router.get("/v1/mining/records")
    async def records(who: Players) -> ...

or, for a public route, ``dependencies=[Depends(PUBLIC)]`` (``api.callers.PUBLIC``).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI, Request, Security
from fastapi.routing import APIRoute, iter_route_contexts

from access.callers import (
    ID_TOKEN_KINDS,
    TOKEN_KINDS,
    Accept,
    Bearer,
    Declaration,
    Kind,
    Refusal,
    admit,
)
from access.consent import granted_scopes
from access.ratelimit import USER_LIMIT, Revoked
from api.auth.deps import (
    Verified,
    api_key_header,
    id_token_principal,
    oauth2_scheme,
    principal_from_claims,
    project_id_header,
    signature_header,
    unauthorized,
    verified_bearer,
    verifier_of,
)
from api.auth.principal import Principal, UserPrincipal
from api.auth.project import ProjectAuthenticator
from api.ratelimit import enforce, enforce_ip, ride_for
from core.errors import DomainError

_OPTIONAL = str | None
_PROJECT_SCHEMES = (
    ("project_id", project_id_header),
    ("api_key", api_key_header),
    ("signature", signature_header),
)


class Callers(Declaration):
    """A route's declaration, enforced: the principal of the first accepted kind the request's
    credentials meet, or 401/403. Project credentials are read when the route takes a project
    and the request names one (``X-Project-ID``), a bearer token otherwise."""

    def __init__(self, *accepts: Accept) -> None:
        super().__init__(*accepts)
        self.tokens = self.accepting(*TOKEN_KINDS)
        self.projects = self.accepting(Kind.PROJECT)
        if self.accepting(Kind.OAUTH_CLIENT):
            raise ValueError("OAuth clients are the authorization server's: use Declaration")
        self.id_tokens = any(a.kind in ID_TOKEN_KINDS for a in self.tokens)
        # FastAPI reads a dependency's parameters off its signature: only the schemes (and
        # scopes) of the kinds accepted, so the OpenAPI operation documents exactly them.
        parameters = [inspect.Parameter("request", _KEYWORD, annotation=Request)]
        if self.tokens:
            scopes = sorted({s for a in self.tokens for s in a.scopes})
            parameters.append(_scheme("token", oauth2_scheme, scopes))
        if self.projects:
            scopes = list(self.projects[0].scopes)
            for name, scheme in _PROJECT_SCHEMES:
                parameters.append(_scheme(name, scheme, scopes))
        self.__signature__ = inspect.Signature(parameters)
        # The same check with the credentials read here, for a route that runs it as one
        # dependency (``api.routing.LightRoute``); one object, since FastAPI keys its
        # per-request cache of dependencies by the callable.
        self.read_credentials = self._read_credentials

    async def _read_credentials(self, request: Request) -> Any:
        """``__call__``, each credential read by its own scheme, as FastAPI's solving of the
        signature's sub-dependencies reads it (the OpenAPI document still lists them)."""
        credentials: dict[str, str | None] = {}
        if self.tokens:
            credentials["token"] = await oauth2_scheme(request)
        if self.projects:
            for name, scheme in _PROJECT_SCHEMES:
                credentials[name] = await scheme(request)
        return await self(request, **credentials)

    async def __call__(self, request: Request, **credentials: str | None) -> Any:  # type: ignore[override]
        if self.accepting(Kind.ANYONE):
            return None  # nothing read: the request is counted against its source
        if self.projects and (credentials.get("project_id") or not self.tokens):
            return await self._project(request)
        return await self._user(request, credentials.get("token"))

    async def _project(self, request: Request) -> Principal:
        authenticator: ProjectAuthenticator = request.app.state.project_authenticator
        principal = await authenticator.authenticate(request, list(self.projects[0].scopes))
        request.state.principal = principal
        return principal

    async def _user(self, request: Request, token: str | None) -> UserPrincipal:
        verified = await verified_bearer(request, token, id_tokens=self.id_tokens)
        if verified.id_token:
            principal = id_token_principal(verified.claims)
        else:
            principal = principal_from_claims(verified.claims)
        bearer = Bearer(
            id_token=principal.id_token,
            first_party=principal.first_party,
            role=principal.role,
            scopes=principal.scopes,
            granted=await self._granted(request, principal),
            auth_time=principal.auth_time,
        )
        decided = admit(self.tokens, bearer, time.time())
        if isinstance(decided, Refusal):
            await enforce_ip(request)  # a refused request is its source's, not the user's
            raise _problem(decided)
        # Counted only now, past the audience and scope checks, against the user's budget at
        # this client; the revocation check rides in the same round trip.
        await _count(request, principal, verified)
        request.state.principal = principal
        return principal

    async def _granted(self, request: Request, principal: UserPrincipal) -> frozenset[str] | None:
        """What the user granted the project of an ID token's client (the legacy form)."""
        wanted = principal.id_token and not principal.first_party
        if not wanted or principal.project_id is None or not self.accepting(Kind.ID_TOKEN):
            return None
        async with request.app.state.session_maker() as session:
            return await granted_scopes(session, principal.project_id, principal.uid)


_KEYWORD = inspect.Parameter.KEYWORD_ONLY


def _scheme(name: str, scheme: Any, scopes: list[str]) -> inspect.Parameter:
    return inspect.Parameter(
        name, _KEYWORD, default=Security(scheme, scopes=scopes), annotation=_OPTIONAL
    )


def _problem(refusal: Refusal) -> DomainError:
    if refusal.status == 401:
        error = (
            "insufficient_user_authentication"
            if refusal.slug == "fresh-sign-in-required"
            else "invalid_token"
        )
        return unauthorized(refusal.detail, error, refusal.slug)
    extra: dict[str, Any] = {}
    headers: dict[str, str] = {}
    if refusal.scope:
        extra["required_scope"] = refusal.scope
        headers["WWW-Authenticate"] = f'Bearer error="insufficient_scope", scope="{refusal.scope}"'
    return DomainError(refusal.detail, status=403, slug=refusal.slug, headers=headers, **extra)


async def _count(request: Request, principal: UserPrincipal, verified: Verified) -> None:
    verifier = verifier_of(request)
    revoked_key = verifier.revocation_key(verified.claims) if verified.revocable else None
    try:
        ride = ride_for(request, principal.uid) if revoked_key is not None else None
        await enforce(request, principal.budget_key, USER_LIMIT, revoked_key, ride)
        if verified.id_token and await verifier.id_token_revoked(verified.claims):
            raise Revoked
    except Revoked as exc:
        raise unauthorized("The token has been revoked") from exc


# ------------------------------------------------------------------ the app's declarations


def _declaration_of(dependant: Any) -> list[Declaration]:
    found, stack = [], [dependant]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        if isinstance(current.call, Declaration):
            found.append(current.call)
        stack.extend(current.dependencies)
    return found


def declarations(app: FastAPI) -> Iterator[tuple[str, str, Declaration | None]]:
    """(method, path, declaration) of every operation in the app's OpenAPI document (None: the
    route declares nothing). A route with two declarations is an error at start-up."""
    for context in iter_route_contexts(app.routes):
        if not isinstance(context.original_route, APIRoute) or not context.include_in_schema:
            continue
        found = _declaration_of(context.dependant)
        if len(found) > 1:
            raise ValueError(f"{context.path_format} declares its callers twice: {found}")
        for method in sorted(context.methods or ()):
            if method != "HEAD":
                yield method, str(context.path_format), found[0] if found else None


def install_declarations(app: FastAPI) -> None:
    """Wrap ``app.openapi`` so each operation carries its declaration as ``x-callers``."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = build()
            for method, path, declaration in declarations(app):
                operation = document.get("paths", {}).get(path, {}).get(method.lower())
                if operation is not None and declaration is not None:
                    operation["x-callers"] = declaration.describe()
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
