"""The account pages of the authorization server, under /auth: sign-up (``SIGNUP_MODE``), the
e-mail verification, the password reset and the confirmation of a new e-mail address. Each
page calls accounts.lifecycle inside one transaction, commits, then sends its mail after the
answer (so a reset answers in the same time whether or not the address has an account); the
tokens a reset revoked are published before it answers. Sign-up, reset and resend requests
are limited per source (``SIGNUP_PER_HOUR``). The sign-in page links here
(authserver/pages.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from access.callers import Declaration, anyone
from access.ratelimit import RateLimiter, client_ip, source_of
from access.revocation import RevokedToken
from accounts import lifecycle
from accounts.errors import AccountRefused
from accounts.mail import Mail, Mailer
from authserver import account_pages as pages
from authserver.schemas import html_errors
from core.config import Settings

router = APIRouter(prefix="/auth", tags=["auth"])
ANYONE = [Depends(Declaration(anyone()))]
HOUR_MS = 3_600_000
T = TypeVar("T")


def _form(*fields: str, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """``openapi_extra`` of a page's form (url-encoded, every field a string)."""
    schema = {
        "type": "object",
        "properties": {name: {"type": "string"} for name in (*fields, *optional)},
        "required": list(fields),
    }
    content = {"application/x-www-form-urlencoded": {"schema": schema}}
    return {"requestBody": {"required": True, "content": content}}


def _page(path: str, *statuses: int, form: dict[str, Any] | None = None, post: bool = False) -> Any:
    method = router.post if post else router.get
    return method(
        path,
        response_class=HTMLResponse,
        responses=html_errors(*statuses) if statuses else None,
        dependencies=ANYONE,
        openapi_extra=form,
    )


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _fields(request: Request) -> dict[str, str]:
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


def _next(value: str | None) -> str | None:
    """Where to go after verifying: only an authorization request of this server."""
    if value and value.startswith("/auth/oauth/authorize?"):
        return value
    return None


async def _within_limit(request: Request, what: str) -> Response | None:
    """429 page once this source made ``SIGNUP_PER_HOUR`` such requests within the hour."""
    limiter: RateLimiter = request.app.state.rate_limiter
    source = source_of(client_ip(request.scope))
    result = await limiter.hit(
        f"accounts:{what}:{source}", _settings(request).signup_per_hour, HOUR_MS
    )
    if result.allowed:
        return None
    page = pages.notice("Too many requests", f"Too many from here; try again in "
                        f"{result.retry_after} s.")  # fmt: skip
    return HTMLResponse(page, 429, headers={"Retry-After": str(result.retry_after)})


async def _transaction(request: Request, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """Run ``work`` in one transaction and commit it (nothing is kept if it raises)."""
    async with request.app.state.session_maker() as session:
        result = await work(session)
        await session.commit()
        return result


def _after(request: Request, mail: Mail | None) -> BackgroundTask:
    """What runs after the answer: sending the mail (its time is not the answer's)."""
    settings = _settings(request)

    async def run() -> None:
        if mail is not None:
            await Mailer(settings).send(mail)

    return BackgroundTask(run)


async def _publish(request: Request, revoked: Sequence[RevokedToken]) -> None:
    """The revoked tokens stop working before the page says so (access.revocation)."""
    server = request.app.state.auth_server
    if revoked and server.store.on_revoked is not None:
        await run_in_threadpool(server.store.on_revoked, list(revoked))


async def _mail_request(
    request: Request,
    service: Callable[[AsyncSession, Settings, str], Awaitable[Mail | None]],
    answer: str,
) -> Response:
    """A form that asks for a link by e-mail address: limited per source, the same answer
    whatever the address, the mail (if any) sent after it."""
    if limited := await _within_limit(request, "reset"):
        return limited
    email = (await _fields(request)).get("email", "")
    settings = _settings(request)
    mail = await _transaction(request, lambda s: service(s, settings, email))
    return HTMLResponse(pages.notice("Check your mail", answer), background=_after(request, mail))


# -- sign-up and verification -------------------------------------------------------------


@_page("/signup", 403)
async def signup_page(request: Request, next: str | None = None) -> HTMLResponse:
    """The sign-up page (403 when `SIGNUP_MODE=off`)."""
    if _settings(request).signup_mode == "off":
        return HTMLResponse(pages.notice("Sign-up is closed", "This gateway does not take "
                                         "new accounts."), 403)  # fmt: skip
    return HTMLResponse(pages.signup(next_url=_next(next)))


@_page("/signup", 400, 403, 409, 422, 429, post=True,
       form=_form("username", "email", "password", optional=("next",)))  # fmt: skip
async def signup_submit(request: Request) -> Response:
    """Create an unverified account and send its verification link (`SIGNUP_MODE`: open,
    invite, off). Refusals re-show the form with the reason."""
    if limited := await _within_limit(request, "signup"):
        return limited
    fields = await _fields(request)
    next_url = _next(fields.get("next"))
    form = lifecycle.SignUp(
        fields.get("username", ""), fields.get("email", ""), fields.get("password", "")
    )
    settings = _settings(request)
    try:
        mail = await _transaction(
            request, lambda s: lifecycle.sign_up(s, settings, form, next_url=next_url)
        )
    except AccountRefused as exc:
        values = {"username": form.username, "email": form.email}
        page = pages.signup(values=values, error=exc.detail, next_url=next_url)
        return HTMLResponse(page, exc.status)
    page = pages.notice(
        "Check your mail",
        f"We sent a link to {mail.to}. Open it to verify your address; then you can sign in.",
    )
    return HTMLResponse(page, 200, background=_after(request, mail))


@_page("/verify", 400)
async def verify_page(request: Request, token: str = "", next: str | None = None) -> HTMLResponse:
    """Asks before it verifies (a link scanner's GET does not spend the link)."""
    if not token:
        return HTMLResponse(pages.notice("Invalid link", "This link has no token."), 400)
    return HTMLResponse(
        pages.confirm(
            title="Verify your e-mail address", message="Confirm that this address is yours.",
            action="/auth/verify", token=token, button="Verify", next_url=_next(next),
        )
    )  # fmt: skip


@_page("/verify", 400, post=True, form=_form("token", optional=("next",)))
async def verify_submit(request: Request) -> HTMLResponse:
    """Spend the verification link: the account may sign in from now on."""
    fields = await _fields(request)
    settings = _settings(request)
    try:
        user = await _transaction(
            request, lambda s: lifecycle.verify_email(s, settings, fields.get("token", ""))
        )
    except AccountRefused as exc:
        return HTMLResponse(pages.notice("Invalid link", exc.detail), exc.status)
    next_url = _next(fields.get("next"))
    return HTMLResponse(
        pages.notice(
            "E-mail verified",
            f"{user.email} is verified. You can sign in as {user.username}.",
            (next_url, "Continue") if next_url else None,
        )
    )


@_page("/verify/resend", 429)
async def resend_page(request: Request) -> HTMLResponse:
    """Ask for a new verification link."""
    return HTMLResponse(
        pages.email_form(
            title="Resend the verification mail", action="/auth/verify/resend",
            intro="The address you signed up with:", button="Send",
        )
    )  # fmt: skip


@_page("/verify/resend", 429, post=True, form=_form("email"))
async def resend_submit(request: Request) -> Response:
    """Send a new verification link; the same answer whether or not there is such an
    unverified account."""
    return await _mail_request(
        request, lifecycle.resend_verification,
        "If that address has an account waiting for verification, a new link is on its way.",
    )  # fmt: skip


# -- password reset -------------------------------------------------------------------------


@_page("/reset", 429)
async def reset_page(request: Request) -> HTMLResponse:
    """Ask for a password-reset link."""
    return HTMLResponse(
        pages.email_form(
            title="Reset your password", action="/auth/reset",
            intro="We will send a link to choose a new password.", button="Send the link",
        )
    )  # fmt: skip


@_page("/reset", 429, post=True, form=_form("email"))
async def reset_submit(request: Request) -> Response:
    """Send a reset link if the address has an account; the answer (and its time: the mail
    goes out after it) is the same either way."""
    return await _mail_request(
        request, lifecycle.request_reset,
        "If that address has an account, a link to reset its password is on its way.",
    )  # fmt: skip


@_page("/reset/confirm", 400)
async def reset_confirm_page(request: Request, token: str = "") -> HTMLResponse:
    """The new-password form of a reset link."""
    if not token:
        return HTMLResponse(pages.notice("Invalid link", "This link has no token."), 400)
    return HTMLResponse(pages.new_password(token=token))


@_page("/reset/confirm", 400, 422, post=True, form=_form("token", "password"))
async def reset_confirm_submit(request: Request) -> Response:
    """Spend the reset link and set the new password; every token of the account is revoked."""
    fields = await _fields(request)
    token, settings = fields.get("token", ""), _settings(request)
    try:
        user, revoked = await _transaction(
            request,
            lambda s: lifecycle.reset_password(s, settings, token, fields.get("password", "")),
        )
    except AccountRefused as exc:
        if exc.status == 400:
            return HTMLResponse(pages.notice("Invalid link", exc.detail), 400)
        return HTMLResponse(pages.new_password(token=token, error=exc.detail), exc.status)
    page = pages.notice("Password changed", f"You can sign in as {user.username} with the new "
                        "password. You were signed out everywhere else.")  # fmt: skip
    await _publish(request, revoked)
    return HTMLResponse(page)


# -- e-mail change ----------------------------------------------------------------------------


@_page("/email/confirm", 400)
async def email_confirm_page(request: Request, token: str = "") -> HTMLResponse:
    """Asks before it changes the address (`POST /v1/users/me/email` sent the link)."""
    if not token:
        return HTMLResponse(pages.notice("Invalid link", "This link has no token."), 400)
    return HTMLResponse(
        pages.confirm(
            title="Confirm your new e-mail address", action="/auth/email/confirm", token=token,
            message="Make this address the e-mail address of your account.", button="Confirm",
        )
    )  # fmt: skip


@_page("/email/confirm", 400, 409, post=True, form=_form("token"))
async def email_confirm_submit(request: Request) -> HTMLResponse:
    """Spend the link: the account's e-mail address is the new one, verified."""
    token, settings = (await _fields(request)).get("token", ""), _settings(request)
    try:
        user = await _transaction(
            request, lambda s: lifecycle.confirm_email_change(s, settings, token)
        )
    except AccountRefused as exc:
        return HTMLResponse(pages.notice("Not changed", exc.detail), exc.status)
    return HTMLResponse(pages.notice("E-mail changed", f"Your address is now {user.email}."))
