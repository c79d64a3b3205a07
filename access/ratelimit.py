"""Sliding-window rate limits in Redis, one atomic Lua script per hit (below both adapters:
the API's middleware and auth dependencies, ``api.ratelimit``, and the authorization server's
sign-in throttle, ``access.login``, keys its sources the same way).

Each client (``u:<uid>``, ``p:<project_id>`` or ``ip:<address>``) has a sorted set of hit times
over the last 60 s; the script trims, counts, admits and reports in one round trip, on Redis's
clock, so any number of API processes share one exact window. A bearer token's revocation
marker (``access.revocation``) is checked in the same round trip as its hit.
"""

from __future__ import annotations

import ipaddress
import itertools
import math
import secrets
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from starlette.types import Scope

from access.ratelimit_lua import PEEK, REVOCABLE, SCRIPT, riding

WINDOW_MS = 60_000
TIER_LIMITS = {"free": 100, "standard": 1_000, "enterprise": 10_000}
USER_LIMIT = 100
ANONYMOUS_LIMIT = 100


@dataclass(frozen=True, slots=True)
class RateResult:
    allowed: bool
    limit: int
    remaining: int
    reset: int  # unix seconds
    retry_after: int  # seconds, meaningful when not allowed

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (and ``Retry-After`` when refused),
        as an ASGI answer carries them (lower-case names, bytes)."""
        headers = [
            (b"x-ratelimit-limit", b"%d" % self.limit),
            (b"x-ratelimit-remaining", b"%d" % self.remaining),
            (b"x-ratelimit-reset", b"%d" % self.reset),
        ]
        if not self.allowed:
            headers.append((b"retry-after", b"%d" % self.retry_after))
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


@dataclass(slots=True)
class Ride:
    """A script's read that rides in the round trip of a rate-limit hit (a route's own Redis
    read, sent with its caller's count: one round trip instead of two). The limiter runs
    ``script`` (a Lua source reading its own ``KEYS`` and ``ARGV``) inside its own count's
    script, one EVALSHA; ``read`` says whether ``reply`` holds its answer (not when the hit
    went without it, or the read failed: the route then reads alone, as it would have)."""

    script: str
    keys: list[str]
    args: list[str]
    reply: Any = None
    read: bool = False


class Revoked(Exception):
    """The bearer's token is revoked (checked in the same round trip as its rate limit)."""


class RateLimiter:
    def __init__(self, redis: Redis, prefix: str = "rl:") -> None:
        self._script = redis.register_script(SCRIPT)
        self._revocable = redis.register_script(REVOCABLE)
        self._peek = redis.register_script(PEEK)
        self._redis = redis
        self._prefix = prefix
        # A ride's script folded into the revocable count's, one per ride script (``riding``).
        self._riding: dict[str, AsyncScript] = {}

    async def hit(self, key: str, limit: int, window_ms: int = WINDOW_MS) -> RateResult:
        allowed, used, reset_ms, now_ms = await self._script(
            keys=[self._prefix + key], args=[window_ms, limit, _member()]
        )
        return _result(limit, allowed, used, reset_ms, now_ms)

    async def hit_unless_revoked(
        self,
        key: str,
        limit: int,
        revoked_key: str,
        ip_key: str,
        ip_limit: int,
        ride: Ride | None = None,
    ) -> tuple[bool, RateResult]:
        """(revoked, result): one hit for ``key``, or for ``ip_key`` if ``revoked_key`` exists.
        With ``ride``, its read goes in the same round trip (its ``reply`` is set)."""
        keys = [self._prefix + key, revoked_key, self._prefix + ip_key]
        args: list[str | int] = [WINDOW_MS, limit, _member(), ip_limit]
        if ride is None:
            *hit, revoked = await self._revocable(keys=keys, args=args)
        else:
            # One EVALSHA (a pipeline of two cost the bonus read more CPU than the rest of its
            # route); a script Redis lost (restart, SCRIPT FLUSH) is loaded again by redis-py.
            script = self._riding.get(ride.script)
            if script is None:
                script = self._riding[ride.script] = self._redis.register_script(
                    riding(ride.script)
                )
            *hit, revoked, ok, reply = await script(
                keys=[*keys, *ride.keys], args=[*args, len(ride.keys), *ride.args]
            )
            if ok:  # else the read failed: the route reads it again, alone
                ride.reply, ride.read = reply, True
        return bool(revoked), _result(ip_limit if revoked else limit, *hit)

    async def revoked(self, revoked_key: str) -> bool:
        return bool(await self._redis.exists(revoked_key))

    async def count(self, key: str, window_ms: int = WINDOW_MS) -> int:
        """Hits of ``key`` within the window, without adding one."""
        return int(await self._peek(keys=[self._prefix + key], args=[window_ms]))


def client_ip(scope: Scope) -> str:
    """The TCP peer's address, in full (the IP allow-list and the audit trail use this)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def source_of(ip: str) -> str:
    """What a per-address budget counts: an IPv4 address, or the /64 an IPv6 address lies in
    (one subscriber holds a whole /64, so a per-address key would give it 2^64 budgets)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def ip_key(scope: Scope, prefix: str = "ip:") -> str:
    """The rate-limit key of the caller's source (``source_of`` its address)."""
    return prefix + source_of(client_ip(scope))
