"""Passkey enrolment (issue 44), at ``/auth/account/passkey``: who is enrolling is checked as
for an authenticator app (authserver.enrol: username, password through the sign-in throttle,
and the app's current code when there is one); then the browser creates the passkey against
the options the page carries and posts it, with the sealed ticket of its single-use challenge.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from access.callers import Declaration, anyone
from authserver import passkey_pages
from authserver.adapter import read_form
from authserver.enrol import enrolling_user
from authserver.mfa_pages import expired
from authserver.passkeys import CREDENTIAL, TICKET, Passkeys
from authserver.schemas import html_errors
from authserver.server import AuthServer
from authserver.store import UserInfo

router = APIRouter(prefix="/auth/account", tags=["auth"])
_ACTION = "/auth/account/passkey"


def passkeys(server: AuthServer) -> Passkeys:
    return Passkeys(server.store, server.settings)


@router.get(
    "/passkey",
    response_class=HTMLResponse,
    responses=html_errors(429),
    dependencies=[Depends(Declaration(anyone()))],
)
async def passkey_page() -> HTMLResponse:
    """Add a passkey (WebAuthn) to sign in with: who is enrolling."""
    return HTMLResponse(passkey_pages.enrol_start(action=_ACTION))


@router.post(
    "/passkey",
    response_class=HTMLResponse,
    responses=html_errors(400, 401, 429),
    dependencies=[Depends(Declaration(anyone()))],
)
async def passkey_submit(request: Request) -> Response:
    """Add a passkey: `step=password` (username, password, and the authenticator app's code
    when there is one) answers the page that creates it; `step=confirm` (the browser's
    credential and the ticket) keeps it."""
    server: AuthServer = request.app.state.auth_server
    form = dict(await read_form(request))
    if form.get("step") == "confirm":
        uid = await run_in_threadpool(
            passkeys(server).register, form.get(TICKET), form.get(CREDENTIAL, "")
        )
        if uid is None:
            return HTMLResponse(expired(), 400)
        return HTMLResponse(passkey_pages.enrol_done())
    user = await enrolling_user(request, server, form, passkey_pages.enrol_start(action=_ACTION))
    if not isinstance(user, UserInfo):
        return user
    ceremony = await run_in_threadpool(passkeys(server).registration, user.uid, user.username)
    page = passkey_pages.enrol_create(action=_ACTION, username=user.username, ceremony=ceremony)
    return HTMLResponse(page)
