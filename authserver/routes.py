"""The authorization server's HTTP endpoints, mounted under /auth."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from authlib.oauth2 import OAuth2Error
from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from access.callers import Declaration, anyone, oauth_client
from access.scopes import USER_SCOPES
from authserver import mfa, mfa_pages, pages, passkey_pages, passkeys, throttle, upstream_routes
from authserver.adapter import (
    StarletteOAuth2Request,
    create_oauth2_request,
    handle_response,
    read_form,
)
from authserver.models import Client
from authserver.schemas import (
    TOKEN_FORM,
    TOKEN_QUERY_FORM,
    Introspection,
    Jwks,
    OpenIdConfiguration,
    Revocation,
    TokenResponse,
    html_errors,
    oauth_errors,
)
from authserver.server import AuthServer
from authserver.store import UserInfo
from core.security import dummy_password_hash, verify_password

router = APIRouter(prefix="/auth", tags=["auth"])

# Who calls the authorization server (access.callers; the API's routes enforce theirs, here
# authlib authenticates the OAuth clients): the discovery documents and the sign-in page are
# anyone's, the token, introspection and revocation endpoints an OAuth client's.
ANYONE = [Depends(Declaration(anyone()))]
CLIENTS = [Depends(Declaration(oauth_client()))]


def _server(request: Request) -> AuthServer:
    server: AuthServer = request.app.state.auth_server
    return server


def _oauth_error(server: AuthServer, req: StarletteOAuth2Request, exc: OAuth2Error) -> Response:
    status, body, headers = server.handle_error_response(req, exc)
    if status == 302:  # a validated redirect_uri: the client gets the error (RFC 6749 4.1.2.1)
        return handle_response(status, body, headers)
    return HTMLResponse(pages.error(exc.description or exc.error), status_code=400)


def _action(request: Request) -> str:
    return request.url.path + (f"?{request.url.query}" if request.url.query else "")


@router.get(
    "/.well-known/jwks.json", response_model=Jwks, responses=oauth_errors(500), dependencies=ANYONE
)
async def jwks(request: Request) -> JSONResponse:
    """Public signing keys (JWKS)."""
    keys = await run_in_threadpool(_server(request).keys.public_jwks)
    return JSONResponse(keys, headers={"Cache-Control": "public, max-age=300"})


@router.get(
    "/.well-known/openid-configuration",
    response_model=OpenIdConfiguration,
    responses=oauth_errors(500),
    dependencies=ANYONE,
)
async def openid_configuration(request: Request) -> dict[str, Any]:
    """OpenID Connect discovery document."""
    issuer = _server(request).issuer
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/oauth/authorize",
        "token_endpoint": f"{issuer}/oauth/token",
        "introspection_endpoint": f"{issuer}/oauth/introspect",
        "revocation_endpoint": f"{issuer}/oauth/revoke",
        "jwks_uri": f"{issuer}/.well-known/jwks.json",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": list(USER_SCOPES),
        "token_endpoint_auth_methods_supported": [
            "client_secret_basic",
            "client_secret_post",
            "none",
        ],
        "code_challenge_methods_supported": ["S256"],
        "claims_supported": ["sub", "role", "email", "name", "preferred_username"],
    }


@router.get(
    "/oauth/authorize", response_class=HTMLResponse, responses=html_errors(400), dependencies=ANYONE
)
async def authorize_page(request: Request) -> Response:
    """Login and consent page of the authorization-code flow."""
    server = _server(request)
    req = create_oauth2_request(request, server.issuer, [])
    try:
        grant = await run_in_threadpool(server.get_consent_grant, req)
    except OAuth2Error as exc:
        return _oauth_error(server, req, exc)
    client: Client = grant.request.client
    names = {"client_name": client.name, "project_name": client.project_name,
             "scope": grant.request.scope or "", "action": _action(request)}  # fmt: skip
    if (person := await run_in_threadpool(upstream_routes.signed_in, server, request)) is not None:
        provider = server.settings.upstream_oidc_name
        return HTMLResponse(upstream_routes.consent(user=person, provider=provider, **names))
    ceremony = await run_in_threadpool(mfa.passkeys(server).authentication)
    after = passkey_pages.sign_in_button(_action(request), ceremony)
    after += upstream_routes.button(server.settings, _action(request))
    return HTMLResponse(pages.authorize(**names, after=after))


@router.post(
    "/oauth/authorize",
    response_class=HTMLResponse,
    responses=html_errors(400, 401, 429),
    dependencies=ANYONE,
)
async def authorize_submit(request: Request) -> Response:
    """Log in and approve (or deny) the authorization request."""
    server = _server(request)
    form = dict(await read_form(request))
    login = form.get("username", "")
    if form.get("decision") == "approve" and (refused := await throttle.refusal(request, login)):
        return refused
    failed = signed_in = False
    # The OAuth parameters travel in the query string; the form only holds the login.
    req = create_oauth2_request(request, server.issuer, [], include_form=False)

    def decide() -> Response:
        nonlocal failed, signed_in
        try:
            grant = server.get_consent_grant(req)
        except OAuth2Error as exc:
            return _oauth_error(server, req, exc)
        client: Client = grant.request.client
        if form.get("decision") != "approve":
            return handle_response(*server.create_authorization_response(req, None, grant))
        if form.get("via") == upstream_routes.VIA:  # signed in by the upstream provider
            user = upstream_routes.signed_in(server, request)
            if user is None:
                failed = True
                return HTMLResponse(mfa_pages.expired(), status_code=401)
        elif passkeys.TICKET in form:  # a passkey: password-less, or the second step
            user, retry = mfa.passkey_step(server, form, _action(request))
            if user is None:
                failed = True
                return HTMLResponse(retry, status_code=401)
        elif mfa.TICKET in form:  # the second step: the password was right, now the code
            user, retry = mfa.second_step(server, form, _action(request))
            if user is None:
                failed = True
                return HTMLResponse(retry, status_code=401)
        else:
            user = password_user(server, form)
            if user is None:
                failed = True
                page = pages.authorize(
                    client_name=client.name,
                    project_name=client.project_name,
                    scope=grant.request.scope or "",
                    action=_action(request),
                    error="Unknown user or wrong password",
                )
                return HTMLResponse(page, status_code=401)
            ask = mfa.ask_second_factor(server, user, _action(request), login)
            if ask is not None:
                return HTMLResponse(ask)
        signed_in = True
        scopes = (grant.request.scope or "").split()
        if client.project_id is not None:  # a first-party client acts for no project
            server.store.record_consent(user.uid, client.project_id, client.client_id, scopes)
        return handle_response(*server.create_authorization_response(req, user, grant))

    response = await run_in_threadpool(decide)
    await throttle.outcome(request, login, failed=failed, signed_in=signed_in)
    if form.get("via") == upstream_routes.VIA:
        upstream_routes.forget(response)  # decided: the upstream sign-in is spent
    return response


def password_user(server: AuthServer, form: dict[str, str]) -> UserInfo | None:
    """The user whose login and password the form holds (signed in with a password now)."""
    found = server.store.user_by_login(form.get("username", "").strip())
    # An unknown login costs the same scrypt as a known one (no timing oracle).
    stored = found[1] if found is not None else dummy_password_hash()
    if not verify_password(form.get("password", ""), stored) or found is None:
        return None
    return replace(found[0], auth_time=int(time.time()), amr=("pwd",))


async def _endpoint(request: Request, run: Any) -> Response:
    server = _server(request)
    req = create_oauth2_request(request, server.issuer, await read_form(request))
    return handle_response(*await run_in_threadpool(run, server, req))


def _client_endpoint(path: str, model: type[BaseModel], form: dict[str, Any]) -> Any:
    """An endpoint an OAuth client calls with a form (token, introspection, revocation)."""
    return router.post(
        path,
        response_model=model,
        responses=oauth_errors(400, 401),
        dependencies=CLIENTS,
        openapi_extra=form,
    )


@_client_endpoint("/oauth/token", TokenResponse, TOKEN_FORM)
async def token(request: Request) -> Response:
    """Token endpoint: authorization_code (with PKCE) and refresh_token grants."""
    return await _endpoint(request, lambda s, r: s.create_token_response(r))


@_client_endpoint("/oauth/introspect", Introspection, TOKEN_QUERY_FORM)
async def introspect(request: Request) -> Response:
    """RFC 7662 token introspection (client authentication required)."""
    return await _endpoint(request, lambda s, r: s.create_endpoint_response("introspection", r))


@_client_endpoint("/oauth/revoke", Revocation, TOKEN_QUERY_FORM)
async def revoke(request: Request) -> Response:
    """RFC 7009 token revocation (a refresh token revokes its whole family)."""
    return await _endpoint(request, lambda s, r: s.create_endpoint_response("revocation", r))
