"""The console's cookies: encrypted and authenticated (AES-GCM) with a key derived from the
app's SECRET_KEY, HTTP-only, SameSite=Lax, and Secure except on plain-HTTP loopback dev.

Two cookies: ``mccgw_console`` (the signed-in administrator: uid, username, CSRF token,
expiry = the access token's) and ``mccgw_console_login`` (a sign-in in progress: OAuth
``state``, the PKCE verifier and where to go back; ten minutes).

Signing out ends the session on the server too: its id (a hash of its CSRF token, unique per
sign-in) is listed in Redis until the cookie would have expired, and a listed session is
signed out on every request, so a copied cookie dies with the sign-out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import Redis
from starlette.requests import Request
from starlette.responses import Response

from core import sealed
from core.config import Settings

SESSION_COOKIE = "mccgw_console"
LOGIN_COOKIE = "mccgw_console_login"
LOGIN_TTL = 600
PATH = "/console"
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


_PURPOSE = "mccgw-console-cookie"


def seal(settings: Settings, name: str, payload: dict[str, Any]) -> str:
    return sealed.seal(settings.secret_key, _PURPOSE, name, payload)


def unseal(settings: Settings, name: str, value: str | None) -> dict[str, Any] | None:
    """The payload, or None when the cookie is missing, forged, tampered with or expired."""
    return sealed.unseal(settings.secret_key, _PURPOSE, name, value)


def secure_cookies(settings: Settings) -> bool:
    """Secure everywhere except a dev/test stack on plain HTTP at a loopback address (a
    browser would not send a Secure cookie back over http://127.0.0.1)."""
    url = urlsplit(settings.base_url)
    plain_local = url.scheme == "http" and (url.hostname or "") in _LOOPBACK
    return not (settings.is_dev and plain_local)


def set_cookie(response: Response, settings: Settings, name: str, payload: dict[str, Any]) -> None:
    max_age = max(1, int(float(payload["exp"]) - time.time()))
    response.set_cookie(
        name,
        seal(settings, name, payload),
        max_age=max_age,
        path=PATH,
        secure=secure_cookies(settings),
        httponly=True,
        samesite="lax",
    )


def clear_cookie(response: Response, settings: Settings, name: str) -> None:
    response.delete_cookie(
        name, path=PATH, secure=secure_cookies(settings), httponly=True, samesite="lax"
    )


@dataclass(frozen=True)
class ConsoleSession:
    uid: str
    username: str
    csrf: str
    exp: float

    @classmethod
    def new(cls, uid: str, username: str, exp: float) -> ConsoleSession:
        return cls(uid, username, secrets.token_urlsafe(32), exp)

    def payload(self) -> dict[str, Any]:
        return {"uid": self.uid, "username": self.username, "csrf": self.csrf, "exp": self.exp}

    def csrf_ok(self, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf.encode(), str(token).encode())


SIGNED_OUT = "console:signed-out:"


def _ended_key(console: ConsoleSession) -> str:
    return SIGNED_OUT + hashlib.sha256(console.csrf.encode()).hexdigest()[:32]


async def end_session(redis: Redis, console: ConsoleSession) -> None:
    """Sign the session out everywhere (until its cookie would expire anyway)."""
    ttl = max(1, int(console.exp - time.time()) + 1)
    await redis.set(_ended_key(console), b"1", ex=ttl)


async def session_ended(redis: Redis, console: ConsoleSession) -> bool:
    return bool(await redis.exists(_ended_key(console)))


def read_session(request: Request, settings: Settings) -> ConsoleSession | None:
    payload = unseal(settings, SESSION_COOKIE, request.cookies.get(SESSION_COOKIE))
    if payload is None:
        return None
    try:
        return ConsoleSession(
            str(payload["uid"]), str(payload["username"]), str(payload["csrf"]),
            float(payload["exp"]),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return None
