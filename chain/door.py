"""The door's manners toward an RPC provider (``chain/rpc.py`` ``ChainRpc._post`` uses them):
a request budget shared by the deployment's processes, and the backoff between retries.

**The budget** is a token bucket per provider in Redis (``BUDGET``, one Lua script, atomic, on
Redis's clock): each request takes a token; when none is left the request *reserves* the next
one and is told how long to wait for it, so callers queue in arrival order instead of failing
or polling. The bucket holds ``burst`` tokens and refills at ``rate`` so that no one-second
window holds more than ``rps`` requests (``burst + rate`` is 95 % of ``rps``).

A request that finds the bucket more than half full takes a **lease** of ``LEASE`` tokens (one
for itself, the rest kept in the process for its next requests to the same provider, one Redis
round trip for several requests: a write's four calls in a row), valid ``LEASE_SECONDS`` on the
process's clock (started before the script ran, so it ends before Redis's). The bucket counts
the tokens lent (``lent``, until ``LEASE_SECONDS`` after the last lease) as still in it, used
or not: it refills only up to ``burst`` less them, so the tokens in the bucket and in every
process's lease together never exceed ``burst``, and the one-second bound holds as before. A
bucket less than half full lends nothing (one token a request, reserved when none is left), so
leases never waste tokens the deployment is queueing for. A 429 empties
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

# KEYS[1] the provider's bucket (hash: tokens, ts, lent, lent_until); ARGV: rate (tokens/s),
# burst, max_wait_ms, lease (tokens), lease_ms. Takes one token, or ``lease`` when the bucket
# holds at least half of ``burst`` more than that (the extra ones lent for ``lease_ms``: until
# then the refill stops ``lent`` short of ``burst``), or reserves the next one. Returns
# {ms to wait before sending (0: now), tokens taken}, or {-1, 0} when the wait would exceed
# max_wait_ms (nothing reserved).
BUDGET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate, burst, max_wait = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local lease, lease_ms = tonumber(ARGV[4]), tonumber(ARGV[5])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'lent', 'lent_until')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
local lent = tonumber(b[3]) or 0
if now >= (tonumber(b[4]) or 0) then lent = 0 end
tokens = math.min(burst - lent, tokens + (now - ts) * rate / 1000)
local take = 1
if lease > 1 and tokens - lease >= burst / 2 then take = lease end
tokens = tokens - take
local wait = 0
if tokens < 0 then wait = math.ceil(-tokens * 1000 / rate) end
if wait > max_wait then return {-1, 0} end
if take > 1 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now, 'lent', lent + take - 1,
    'lent_until', now + lease_ms)
else
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
end
redis.call('PEXPIRE', KEYS[1], wait + 60000)
return {wait, take}
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


# A lease: the tokens a request takes when the bucket has plenty (its own and the next ones of
# this process), and how long the rest stay usable (a slot or so of a 400 ms chain: a write's
# blockhash, fees, simulation and send come within it; tokens it did not use are lost, and the
# bucket stops counting them as lent when it ends).
LEASE = 4
LEASE_SECONDS = 0.5


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
        # Leases only where the bucket can lend: half of it must stay after one.
        self._lease = LEASE if self._burst / 2 + LEASE <= self._burst else 1
        # provider -> [tokens left, monotonic deadline]: this process's lease of each
        self._leased: dict[str, list[float]] = {}
        self._asking: dict[str, int] = {}  # provider -> takes of this process awaiting Redis

    @staticmethod
    def key(provider: str) -> str:
        return f"mccgw:rpc-budget:{provider}"

    async def take(self, provider: str) -> float:
        """Wait for this request's turn; the seconds waited. Raises ``TimeoutError`` when the
        queue is longer than ``max_wait`` (nothing reserved)."""
        leased = self._leased.get(provider)
        if leased is not None and leased[0] >= 1 and time.monotonic() < leased[1]:
            leased[0] -= 1  # a token of this process's lease: no round trip
            return 0.0
        deadline = time.monotonic() + LEASE_SECONDS
        # Requests at once (a burst, each asking Redis before any lease comes back) could not
        # use a lease: only a request alone asks for one.
        asking = self._asking.get(provider, 0)
        self._asking[provider] = asking + 1
        try:
            wait_ms, taken = await self._take(
                keys=[self.key(provider)],
                args=[
                    self._rate,
                    self._burst,
                    self._max_wait_ms,
                    self._lease if asking == 0 else 1,
                    int(LEASE_SECONDS * 1000),
                ],
            )
        except (RedisError, OSError) as exc:
            self._warn(provider, exc)
            return 0.0
        finally:
            self._asking[provider] -= 1
        wait_ms = int(wait_ms)
        if wait_ms < 0:
            raise TimeoutError(f"the request budget of {provider} is queued beyond the wait limit")
        if int(taken) > 1:
            self._leased[provider] = [int(taken) - 1, deadline]
        waited = wait_ms / 1000
        CHAIN_RPC_BUDGET_WAIT.labels(provider).observe(waited)
        if waited:
            await asyncio.sleep(waited)
        return waited

    async def pause(self, provider: str, seconds: float) -> None:
        """The provider asked for a pause (a 429's Retry-After): every process waits it out
        (this one's lease dropped; another's ends within ``LEASE_SECONDS``)."""
        self._leased.pop(provider, None)
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
