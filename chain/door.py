"""The door's manners toward an RPC provider (``chain/rpc.py`` ``ChainRpc._post`` uses them):
a request budget shared by the deployment's processes, and the backoff between retries.

**The budget** is a token bucket per provider in Redis (``BUDGET``, one Lua script, atomic, on
Redis's clock): each request takes a token; when none is left the request *reserves* the next
one and is told how long to wait for it, so callers queue in arrival order instead of failing
or polling. The bucket holds ``burst`` tokens and refills at ``rate`` so that no one-second
window holds more than ``rps`` requests (``burst + rate`` is 95 % of ``rps``). A 429 empties
the bucket until the provider's ``Retry-After`` (``PAUSE``): every process of the deployment
backs off, not only the one that met it. Redis down: the budget lets requests through (logged), the
provider's own 429s and the backoff still hold them back; a chain write must not stop because
a cache is away.

**The backoff** is "full jitter" exponential (``delay``): a random wait in
``[0, min(cap, base * 2^attempt)]``, and never less than the provider's ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from urllib.parse import urlparse

import orjson
from redis.asyncio import Redis
from redis.exceptions import RedisError

from chain.errors import ChainError
from core.metrics import CHAIN_RPC_BUDGET_WAIT

log = logging.getLogger(__name__)

# KEYS[1] the provider's bucket (hash: tokens, ts); ARGV: rate (tokens/s), burst, max_wait_ms.
# Takes (or reserves) one token. Returns the ms to wait before sending (0: now), or -1 when
# the wait would exceed max_wait_ms (nothing reserved).
BUDGET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate, burst, max_wait = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + (now - ts) * rate / 1000) - 1
local wait = 0
if tokens < 0 then wait = math.ceil(-tokens * 1000 / rate) end
if wait > max_wait then return -1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], wait + 60000)
return wait
"""
# KEYS[1] the bucket; ARGV: rate, pause_ms. No token before pause_ms from now (a 429's
# Retry-After): the bucket goes into debt by that much, unless it is deeper already.
PAUSE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate, pause = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or 0
local ts = tonumber(b[2]) or now
tokens = tokens + (now - ts) * rate / 1000
local floor = -pause * rate / 1000
if tokens > floor then tokens = floor end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], pause + 60000)
return 1
"""


def provider_of(url: str) -> str:
    """A provider's name in keys and metrics: its host and port, never the path or query
    (where a hosted plan keeps its API key)."""
    parsed = urlparse(url)
    host = parsed.hostname or "unknown"
    return f"{host}:{parsed.port}" if parsed.port else host


def delay(attempt: int, retry_after: float | None, *, base: float = 0.1, cap: float = 2.0) -> float:
    """The wait before retry number ``attempt`` (0 first): full-jitter exponential backoff, at
    least the provider's ``Retry-After`` (plus a little jitter so waiters do not return as one)."""
    if retry_after is not None:
        return retry_after + random.uniform(0.0, min(0.5, 0.1 + retry_after * 0.1))
    return random.uniform(0.0, min(cap, base * 2**attempt))


class Budget:
    """A provider's request budget, shared through Redis (``rps`` requests a second)."""

    def __init__(self, redis: Redis, rps: float, *, max_wait: float = 30.0) -> None:
        if rps <= 0:
            raise ValueError("a budget needs a positive rate")
        self._redis = redis
        self.rps = rps
        # burst + rate = rps less 5 %: no one-second window holds more than rps requests,
        # even as they arrive at the provider a few milliseconds closer than they were sent.
        self._burst = max(1.0, rps * 0.2) if rps >= 2 else 1.0
        self._rate = max(rps - self._burst, rps / 2) * 0.95
        self._max_wait_ms = int(max_wait * 1000)
        self._take = redis.register_script(BUDGET)
        self._pause = redis.register_script(PAUSE)
        self._warned_at = 0.0

    @staticmethod
    def key(provider: str) -> str:
        return f"mccgw:rpc-budget:{provider}"

    async def take(self, provider: str) -> float:
        """Wait for this request's turn; the seconds waited. Raises ``TimeoutError`` when the
        queue is longer than ``max_wait`` (nothing reserved)."""
        try:
            wait_ms = int(
                await self._take(
                    keys=[self.key(provider)], args=[self._rate, self._burst, self._max_wait_ms]
                )
            )
        except (RedisError, OSError) as exc:
            self._warn(provider, exc)
            return 0.0
        if wait_ms < 0:
            raise TimeoutError(f"the request budget of {provider} is queued beyond the wait limit")
        waited = wait_ms / 1000
        CHAIN_RPC_BUDGET_WAIT.labels(provider).observe(waited)
        if waited:
            await asyncio.sleep(waited)
        return waited

    async def pause(self, provider: str, seconds: float) -> None:
        """The provider asked for a pause (a 429's Retry-After): every process waits it out."""
        try:
            await self._pause(keys=[self.key(provider)], args=[self._rate, int(seconds * 1000)])
        except (RedisError, OSError) as exc:
            self._warn(provider, exc)

    def _warn(self, provider: str, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at > 60:
            self._warned_at = now
            log.warning("request budget of %s unavailable, not limiting: %s", provider, exc)


class Retryable(Exception):
    """A try that may pass next time: the error to raise when no more tries fit."""

    def __init__(
        self, error: ChainError, retry_after: float | None = None, *, busy: bool = True
    ) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after
        # busy: the provider answered (429, 5xx, node behind) and will again; else it did not
        # answer at all: an outage, retried briefly (UNREACHABLE_WITHIN), then the caller's.
        self.busy = busy


def node_not_ready(raw: bytes, codes: frozenset[int]) -> bool:
    """Whether a single call's (small) answer is an error that a retry may pass."""
    if len(raw) > 4096 or b'"error"' not in raw:
        return False
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    error = doc.get("error") if isinstance(doc, dict) else None
    return isinstance(error, dict) and error.get("code") in codes
