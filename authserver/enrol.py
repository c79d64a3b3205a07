"""TOTP enrolment pages (issue 44), at ``/auth/account/totp``: anyone with an account adds an
authenticator app, and gets ten recovery codes, shown once.

Step one checks who is enrolling (username and password, through the sign-in throttle; to
replace an authenticator, its current code too). Step two shows the new secret and takes a
code from it: only then is the authenticator stored (replacing any earlier one) and the
recovery codes made. Between the steps the new secret rides in a sealed ticket (core.sealed,
ten minutes), so an enrolment left half-way changes nothing.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from access.callers import Declaration, anyone
from authserver import mfa, mfa_pages, throttle
from authserver.adapter import read_form
from authserver.factors import new_totp
from authserver.routes import password_user
from authserver.schemas import html_errors
from authserver.server import AuthServer
from authserver.store import UserInfo
from core import sealed

router = APIRouter(prefix="/auth/account", tags=["auth"])
ENROL_TICKET = "enrol_ticket"
ENROL_TTL = 600
_PURPOSE = "mccgw-authserver-enrol"
_ACTION = "/auth/account/totp"


def _server(request: Request) -> AuthServer:
    server: AuthServer = request.app.state.auth_server
    return server


@router.get(
    "/totp",
    response_class=HTMLResponse,
    responses=html_errors(429),
    dependencies=[Depends(Declaration(anyone()))],
)
async def totp_page() -> HTMLResponse:
    """Set up two-step sign-in with an authenticator app (TOTP, RFC 6238): who is enrolling."""
    return HTMLResponse(mfa_pages.enrol_start(action=_ACTION))


@router.post(
    "/totp",
    response_class=HTMLResponse,
    responses=html_errors(400, 401, 429),
    dependencies=[Depends(Declaration(anyone()))],
)
async def totp_submit(request: Request) -> Response:
    """Enrol an authenticator: `step=password` (username, password, and the current code to
    replace one) answers the new secret; `step=confirm` (its first code) turns it on and
    answers the recovery codes, once."""
    server = _server(request)
    form = dict(await read_form(request))
    if form.get("step") == "confirm":
        return await run_in_threadpool(_confirm, server, form)
    user = await enrolling_user(request, server, form, mfa_pages.enrol_start(action=_ACTION))
    if not isinstance(user, UserInfo):
        return user
    totp = new_totp(user.username)
    payload = {"uid": user.uid, "secret": totp.secret, "uri": totp.uri,
               "exp": time.time() + ENROL_TTL}  # fmt: skip
    ticket = sealed.seal(server.settings.secret_key, _PURPOSE, ENROL_TICKET, payload)
    return HTMLResponse(
        mfa_pages.enrol_scan(action=_ACTION, secret=totp.secret, uri=totp.uri, ticket=ticket)
    )


async def enrolling_user(
    request: Request, server: AuthServer, form: dict[str, str], start: str
) -> UserInfo | Response:
    """Who is adding a second factor: the form's username and password (through the sign-in
    throttle) and, when they have an authenticator already, its current code (or a recovery
    code); else the page ``start`` (the form to fill) with the refusal."""
    login = form.get("username", "")
    if not (login and form.get("password")):
        return HTMLResponse(_with_error(start, "Give your username (or e-mail) and password"), 400)
    if refused := await throttle.refusal(request, login):
        return refused
    user = await run_in_threadpool(_check, server, form)
    await throttle.outcome(request, login, failed=user is None, signed_in=user is not None)
    if user is None:
        error = "Unknown user, wrong password, or (with an authenticator app) wrong code"
        return HTMLResponse(_with_error(start, error), 401)
    return user


def _with_error(page: str, error: str) -> str:
    return page.replace("<form", f"{mfa_pages._error(error)}<form", 1)


def _check(server: AuthServer, form: dict[str, str]) -> UserInfo | None:
    user = password_user(server, form)
    factors = mfa.factors(server)
    if user is not None and factors.has_totp(user.uid):
        code = form.get("code", "")
        if not (factors.check_totp(user.uid, code) or factors.use_recovery_code(user.uid, code)):
            return None
    return user


def _confirm(server: AuthServer, form: dict[str, str]) -> Response:
    raw = form.get(ENROL_TICKET)
    ticket = sealed.unseal(server.settings.secret_key, _PURPOSE, ENROL_TICKET, raw)
    if ticket is None:
        return HTMLResponse(mfa_pages.expired(), 400)
    secret = str(ticket["secret"])
    codes = mfa.factors(server).confirm_totp(str(ticket["uid"]), secret, form.get("code", ""))
    if codes is None:
        page = mfa_pages.enrol_scan(
            action=_ACTION, secret=secret, uri=str(ticket["uri"]), ticket=raw or "",
            error="That code is not right; type the one the app shows now",
        )  # fmt: skip
        return HTMLResponse(page, 401)
    return HTMLResponse(mfa_pages.enrol_done(codes))
