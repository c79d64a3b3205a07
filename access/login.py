"""Failed password sign-ins, counted per account and per source (the authorization server's
sign-in form), in the rate limiter's windows. Checked before the password is hashed."""

from __future__ import annotations

import hashlib

from access.ratelimit import (
    LOGIN_FAILURES_PER_ACCOUNT,
    LOGIN_FAILURES_PER_IP,
    LOGIN_WINDOW_MS,
    RateLimiter,
)


def _keys(login: str, ip: str) -> tuple[str, str]:
    account = hashlib.sha256(login.strip().lower().encode()).hexdigest()[:32]
    return f"login:acct:{account}", f"login:ip:{ip}"


async def blocked(limiter: RateLimiter, login: str, ip: str) -> bool:
    """Too many failed logins for this account or from this IP (checked before scrypt)."""
    account, source = _keys(login, ip)
    return (
        await limiter.count(account, LOGIN_WINDOW_MS) >= LOGIN_FAILURES_PER_ACCOUNT
        or await limiter.count(source, LOGIN_WINDOW_MS) >= LOGIN_FAILURES_PER_IP
    )


async def failed(limiter: RateLimiter, login: str, ip: str) -> None:
    account, source = _keys(login, ip)
    await limiter.hit(account, LOGIN_FAILURES_PER_ACCOUNT, LOGIN_WINDOW_MS)
    await limiter.hit(source, LOGIN_FAILURES_PER_IP, LOGIN_WINDOW_MS)
