"""Sliding-window rate limits in Redis, one atomic Lua script per hit (below both adapters:
the API's middleware and auth dependencies, ``api.ratelimit``, and the authorization server's
sign-in throttle, ``access.login``, count in the same windows).

Each client (``u:<uid>``, ``p:<project_id>`` or ``ip:<address>``) has a sorted set of hit times
over the last 60 s; the script trims, counts, admits and reports in one round trip, on Redis's
clock, so any number of API processes share one exact window. A bearer token's revocation
marker (``access.revocation``) is checked in the same round trip as its hit.
"""

from __future__ import annotations

import itertools
import math
import secrets
from dataclasses import dataclass

from redis.asyncio import Redis
from starlette.types import Scope

from access.ratelimit_lua import PEEK, REVOCABLE, SCRIPT

WINDOW_MS = 60_000
TIER_LIMITS = {"free": 100, "standard": 1_000, "enterprise": 10_000}
USER_LIMIT = 100
ANONYMOUS_LIMIT = 100
# Failed password logins: per account and per IP, over 15 minutes (password guessing, and the
# scrypt CPU each attempt costs). Checked before the password is hashed.
LOGIN_WINDOW_MS = 15 * 60_000
LOGIN_FAILURES_PER_ACCOUNT = 10
LOGIN_FAILURES_PER_IP = 30


@dataclass(frozen=True, slots=True)
class RateResult:
    allowed: bool
    limit: int
    remaining: int
    reset: int  # unix seconds
    retry_after: int  # seconds, meaningful when not allowed

    def headers(self) -> dict[str, str]:
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after)
        return headers


# Window members must be unique across API processes: a random process tag and a counter
# (uuid4 per hit cost more CPU than the rest of the call's Python).
_TAG, _SEQ = secrets.token_hex(4), itertools.count()


def _member() -> str:
    return f"{_TAG}{next(_SEQ)}"


def _result(limit: int, allowed: int, used: int, reset_ms: int, now_ms: int) -> RateResult:
    return RateResult(
        allowed=bool(allowed),
        limit=limit,
        remaining=max(0, limit - int(used)),
        reset=math.ceil(int(reset_ms) / 1000),
        retry_after=max(1, math.ceil((int(reset_ms) - int(now_ms)) / 1000)),
    )


class Revoked(Exception):
    """The bearer's token is revoked (checked in the same round trip as its rate limit)."""


class RateLimiter:
    def __init__(self, redis: Redis, prefix: str = "rl:") -> None:
        self._script = redis.register_script(SCRIPT)
        self._revocable = redis.register_script(REVOCABLE)
        self._peek = redis.register_script(PEEK)
        self._redis = redis
        self._prefix = prefix

    async def hit(self, key: str, limit: int, window_ms: int = WINDOW_MS) -> RateResult:
        allowed, used, reset_ms, now_ms = await self._script(
            keys=[self._prefix + key], args=[window_ms, limit, _member()]
        )
        return _result(limit, allowed, used, reset_ms, now_ms)

    async def hit_unless_revoked(
        self, key: str, limit: int, revoked_key: str, ip_key: str, ip_limit: int
    ) -> tuple[bool, RateResult]:
        """(revoked, result): one hit for ``key``, or for ``ip_key`` if ``revoked_key`` exists."""
        *hit, revoked = await self._revocable(
            keys=[self._prefix + key, revoked_key, self._prefix + ip_key],
            args=[WINDOW_MS, limit, _member(), ip_limit],
        )
        return bool(revoked), _result(ip_limit if revoked else limit, *hit)

    async def revoked(self, revoked_key: str) -> bool:
        return bool(await self._redis.exists(revoked_key))

    async def count(self, key: str, window_ms: int = WINDOW_MS) -> int:
        """Hits of ``key`` within the window, without adding one."""
        return int(await self._peek(keys=[self._prefix + key], args=[window_ms]))


def client_ip(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
