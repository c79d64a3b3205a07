"""Console sign-in: the authorization-code flow with PKCE against our own authorization
server, with the gateway's first-party client ``mccgw-console``; only users whose role is
``admin`` enter."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any
from urllib.parse import urlencode

import httpx
from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from api.auth.deps import principal_from_claims
from api.auth.tokens import AuthServerUnavailable, InvalidToken
from api.auth.wiring import auth_transport
from api.console.pages import console_router, post, render, sessions
from api.console.session import (
    LOGIN_COOKIE,
    LOGIN_TTL,
    SESSION_COOKIE,
    ConsoleSession,
    clear_cookie,
    end_session,
    set_cookie,
    unseal,
)
from authserver.server import CONSOLE_SCOPES, console_credentials, console_redirect_uri
from core.config import Settings
from core.errors import DomainError
from db.models import User

router = console_router()


def _safe_next(value: str | None) -> str:
    if value and value.startswith("/console") and not value.startswith("//"):
        return value
    return "/console/applications"


@router.get("/login")
async def login(request: Request, next: str | None = None) -> Response:
    """Start the authorization-code flow (PKCE S256) with the console's first-party client."""
    settings: Settings = request.app.state.settings
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    state = secrets.token_urlsafe(24)
    query = urlencode(
        {
            "response_type": "code",
            "client_id": console_credentials(settings).client_id,
            "redirect_uri": console_redirect_uri(settings),
            "scope": " ".join(CONSOLE_SCOPES),
            "state": state,
            "code_challenge": challenge.decode().rstrip("="),
            "code_challenge_method": "S256",
        }
    )
    response = RedirectResponse(f"{settings.auth_url.rstrip('/')}/oauth/authorize?{query}", 303)
    payload = {"state": state, "verifier": verifier, "next": _safe_next(next)}
    set_cookie(response, settings, LOGIN_COOKIE, payload | {"exp": time.time() + LOGIN_TTL})
    return response


async def _exchange(request: Request, code: str, verifier: str) -> dict[str, Any]:
    settings: Settings = request.app.state.settings
    credentials = console_credentials(settings)
    transport = auth_transport(request.app, settings)
    async with httpx.AsyncClient(transport=transport, timeout=10) as http:
        try:
            resp = await http.post(
                f"{settings.auth_url.rstrip('/')}/oauth/token",
                data={
                    "grant_type": "authorization_code",
                    "code": code,
                    "redirect_uri": console_redirect_uri(settings),
                    "code_verifier": verifier,
                    "client_id": credentials.client_id,
                    "client_secret": credentials.client_secret,
                },
            )
        except httpx.HTTPError as exc:
            raise DomainError(
                "The authorization server is unreachable", status=503, slug="service-unavailable"
            ) from exc
    if resp.status_code != 200:
        raise DomainError(
            f"The authorization server refused the sign-in: {resp.text[:200]}",
            status=401,
            slug="unauthorized",
            title="Sign-in failed",
        )
    body: dict[str, Any] = resp.json()
    return body


@router.get("/callback")
async def callback(
    request: Request,
    code: str | None = None,
    state: str | None = None,
    error: str | None = None,
) -> Response:
    """OAuth redirect target: check state, exchange the code, admit administrators only."""
    settings: Settings = request.app.state.settings
    pending = unseal(settings, LOGIN_COOKIE, request.cookies.get(LOGIN_COOKIE))
    if error:
        raise DomainError(f"The sign-in was not completed ({error})", status=401,
                           slug="unauthorized", title="Sign-in failed")  # fmt: skip
    if pending is None or not state or not secrets.compare_digest(str(pending["state"]), state):
        raise DomainError(
            "The sign-in expired or did not start here; sign in again",
            status=400, slug="bad-request", title="Sign-in failed",
        )  # fmt: skip
    if not code:
        raise DomainError("No authorization code", status=400, slug="bad-request")
    tokens = await _exchange(request, code, str(pending["verifier"]))
    try:
        claims = await request.app.state.token_verifier.access_token(tokens["access_token"])
    except (InvalidToken, AuthServerUnavailable, KeyError) as exc:
        raise DomainError("The access token could not be verified", status=401,
                           slug="unauthorized", title="Sign-in failed") from exc  # fmt: skip
    principal = principal_from_claims(claims)
    async with sessions(request) as session:
        user = await session.get(User, principal.uid)
    if user is None or user.role != "admin":
        response: Response = render(request, "forbidden.html", status_code=403, session=None)
        clear_cookie(response, settings, LOGIN_COOKIE)
        return response
    if not second_factor(claims):
        response = render(request, "second_factor.html", status_code=403, session=None)
        clear_cookie(response, settings, LOGIN_COOKIE)
        return response
    exp = min(float(claims.get("exp", time.time() + 3600)), time.time() + 8 * 3600)
    console = ConsoleSession.new(user.uid, user.username, exp)
    response = RedirectResponse(_safe_next(str(pending.get("next"))), 303)
    set_cookie(response, settings, SESSION_COOKIE, console.payload())
    clear_cookie(response, settings, LOGIN_COOKIE)
    return response


def second_factor(claims: dict[str, Any]) -> bool:
    """Whether the sign-in used a second factor (the token's RFC 8176 ``amr``): the console
    admits administrators only with one (issue 44)."""
    return "mfa" in (claims.get("amr") or ())


@router.post("/logout")
async def logout(request: Request) -> Response:
    """Sign out (CSRF-checked)."""
    async with sessions(request) as session:
        console, _, _ = await post(request, session)
    await end_session(request.app.state.redis, console)  # a copied cookie dies with it
    response = RedirectResponse("/console/signed-out", 303)
    clear_cookie(response, request.app.state.settings, SESSION_COOKIE)
    return response


@router.get("/signed-out")
async def signed_out(request: Request) -> Response:
    return render(request, "signed_out.html", session=None)


@router.get("")
@router.get("/")
async def home(request: Request) -> Response:
    return RedirectResponse("/console/overview", 303)
