"""The upstream sign-in's endpoints (authserver/upstream.py): ``/auth/upstream/login`` sends the
person to the provider, ``/auth/upstream/callback`` takes them back, verifies the ID token,
links the local account and returns them to the authorization request they came from, signed
in: its page then asks only for their consent.

Two sealed cookies (core.sealed) carry the state: the sign-in under way (``state``, ``nonce``,
the PKCE verifier and the authorization request's URL; 10 minutes, path /auth/upstream) and
the person it signed in (5 minutes, path /auth/oauth; cleared when they decide). Their tokens
say ``amr: ["fed"]``: signed in by another provider, not by a password of ours.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from html import escape
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from access.callers import Declaration, anyone
from authserver.pages import _page as page
from authserver.schemas import html_errors
from authserver.server import AuthServer
from authserver.store import UserInfo
from authserver.upstream import SCOPE, Upstream, UpstreamError, configured, link, redirect_uri
from core import sealed
from core.config import Settings

router = APIRouter(prefix="/auth/upstream", tags=["auth"])
ANYONE = [Depends(Declaration(anyone()))]
LOGIN_COOKIE = "mccgw_upstream_login"
USER_COOKIE = "mccgw_upstream_user"
VIA = "upstream"
_PURPOSE = "mccgw-authserver-upstream"
_AUTHORIZE = "/auth/oauth/authorize?"
AMR = ["fed"]


def _upstream(request: Request) -> Upstream:
    state = request.app.state
    if getattr(state, "upstream", None) is None:
        state.upstream = Upstream(state.settings)
    upstream: Upstream = state.upstream
    return upstream


def _set(
    response: Response, settings: Settings, name: str, path: str, payload: dict[str, Any]
) -> None:
    value = sealed.seal(settings.secret_key, _PURPOSE, name, payload)
    secure = settings.auth_url.startswith("https://")
    max_age = int(payload["exp"] - time.time())
    response.set_cookie(name, value, max_age=max_age, path=path, httponly=True,
                        samesite="lax", secure=secure)  # fmt: skip


def button(settings: Settings, action: str) -> str:
    """The authorize page's "Sign in with ..." link (nothing when no provider is set)."""
    if not configured(settings):
        return ""
    href = "/auth/upstream/login?" + urlencode({"next": action})
    return (f"<p>or</p><p><a id=upstream-sign-in class=button href='{escape(href, quote=True)}'>"
            f"Sign in with {escape(settings.upstream_oidc_name)}</a></p>")  # fmt: skip


def signed_in(server: AuthServer, request: Request) -> UserInfo | None:
    """The person the upstream sign-in signed in on this browser (still valid), or None."""
    settings = server.settings
    cookie = request.cookies.get(USER_COOKIE)
    found = sealed.unseal(settings.secret_key, _PURPOSE, USER_COOKIE, cookie)
    if found is None:
        return None
    user = server.store.user_by_uid(str(found["uid"]))
    if user is None:
        return None
    return UserInfo(user.uid, user.username, user.email, user.role, user.display_name,
                    auth_time=int(found["auth_time"]), amr=tuple(AMR))  # fmt: skip


def forget(response: Response) -> None:
    response.delete_cookie(USER_COOKIE, path="/auth/oauth")


def consent(*, user: UserInfo, provider: str, client_name: str, project_name: str,
            scope: str, action: str) -> str:  # fmt: skip
    """The authorize page of a person the provider signed in: their consent alone."""
    items = "".join(f"<li><code>{escape(s)}</code></li>" for s in scope.split())
    return page(
        "Authorize",
        f"<h1>Authorize {escape(project_name)}</h1><p>Signed in as <strong id=signed-in-as>"
        f"{escape(user.username)}</strong> through {escape(provider)}.</p>"
        f"<p><strong>{escape(client_name)}</strong> asks to act on your behalf with:</p>"
        f"<ul>{items or '<li>basic access</li>'}</ul>"
        f"<form method=post action='{escape(action, quote=True)}'>"
        f"<input type=hidden name=via value={VIA}>"
        "<button name=decision value=approve>Authorize</button>"
        "<button name=decision value=deny>Deny</button></form>",
    )


def _redirect(where: str) -> dict[int | str, dict[str, Any]]:
    return {303: {"description": f"Redirect {where} (the usual answer; 200 is never sent)"}}


def _problem(message: str, status: int) -> HTMLResponse:
    return HTMLResponse(
        page("Sign-in failed", f"<h1>Sign-in failed</h1><p class=error role=alert>"
                               f"{escape(message)}</p>"),
        status_code=status,
    )  # fmt: skip


@router.get(
    "/login",
    response_class=HTMLResponse,
    responses=html_errors(400, 404, 502) | _redirect("to the provider's authorization endpoint"),
    dependencies=ANYONE,
)
async def upstream_login(request: Request, next: str = "") -> Response:
    """Sign in through the upstream OpenID Connect provider: redirects there (authorization
    code with PKCE S256, `state`, `nonce`); `next` is the authorization request to return to."""
    settings: Settings = request.app.state.settings
    if not configured(settings):
        return _problem("No upstream identity provider is configured here", 404)
    if not next.startswith(_AUTHORIZE):
        return _problem("The sign-in must start from an authorization request", 400)
    try:
        provider = await _upstream(request).provider()
    except UpstreamError as exc:
        return _problem(str(exc), 502)
    verifier, state, nonce = (secrets.token_urlsafe(48) for _ in range(3))
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = urlencode({
        "response_type": "code", "client_id": settings.upstream_oidc_client_id,
        "redirect_uri": redirect_uri(settings), "scope": SCOPE, "state": state, "nonce": nonce,
        "code_challenge": challenge.decode().rstrip("="), "code_challenge_method": "S256",
    })  # fmt: skip
    response = RedirectResponse(f"{provider.authorization_endpoint}?{query}", 303)
    payload = {"state": state, "nonce": nonce, "verifier": verifier, "next": next,
               "exp": time.time() + 600}  # fmt: skip
    _set(response, settings, LOGIN_COOKIE, "/auth/upstream", payload)
    return response


@router.get(
    "/callback",
    response_class=HTMLResponse,
    responses=html_errors(400, 401, 409, 502) | _redirect("back to the authorization request"),
    dependencies=ANYONE,
)
async def upstream_callback(
    request: Request, code: str = "", state: str = "", error: str = ""
) -> Response:
    """The provider's redirect back: checks `state`, exchanges the code (with the PKCE
    verifier), verifies the ID token (JWKS, issuer, audience, nonce), links or makes the local
    account, and returns to the authorization request, signed in."""
    settings: Settings = request.app.state.settings
    server: AuthServer = request.app.state.auth_server
    pending = sealed.unseal(
        settings.secret_key, _PURPOSE, LOGIN_COOKIE, request.cookies.get(LOGIN_COOKIE)
    )
    if error:
        return _problem(f"The identity provider did not sign you in ({error})", 401)
    if pending is None or not state or not secrets.compare_digest(str(pending["state"]), state):
        return _problem("The sign-in expired or did not start here; sign in again", 400)
    upstream = _upstream(request)
    try:
        tokens = await upstream.exchange(code, str(pending["verifier"]))
        claims = await upstream.verify(str(tokens.get("id_token", "")), str(pending["nonce"]))
        issuer = (await upstream.provider()).issuer
        user = await run_in_threadpool(link, server.store, issuer, claims)
    except UpstreamError as exc:
        return _problem(str(exc), exc.status)
    response = RedirectResponse(str(pending["next"]), 303)
    signed = {"uid": user.uid, "auth_time": int(time.time()), "exp": time.time() + 300}
    _set(response, settings, USER_COOKIE, "/auth/oauth", signed)
    response.delete_cookie(LOGIN_COOKIE, path="/auth/upstream")
    return response
