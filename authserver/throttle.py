"""The sign-in throttle (access.login) as the authorization server's pages apply it: every form
that checks a password (the sign-in, TOTP enrolment) asks it first and tells it the outcome."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse

from access.login import LoginThrottle, hold
from access.ratelimit import client_ip, source_of
from authserver import pages


def _throttle(request: Request) -> LoginThrottle:
    throttle: LoginThrottle = request.app.state.login_throttle
    return throttle


async def refusal(request: Request, login: str) -> HTMLResponse | None:
    """A 429 page when this login failed too often from here; else None, after the hold the
    throttle asks for (the password may then be checked)."""
    verdict = await _throttle(request).check(login, source_of(client_ip(request.scope)))
    if verdict.refused:
        return HTMLResponse(
            pages.error(
                f"Too many failed sign-ins from here; try again in {verdict.retry_after} s"
            ),
            status_code=429,
            headers={"Retry-After": str(verdict.retry_after)},
        )
    await hold(verdict)
    return None


async def outcome(request: Request, login: str, *, failed: bool, signed_in: bool) -> None:
    source = source_of(client_ip(request.scope))
    if failed:
        await _throttle(request).failed(login, source)
    elif signed_in:
        await _throttle(request).succeeded(login, source)
