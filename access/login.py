"""Sign-in throttling: slow a password guesser down without letting anyone lock the owner out.

Failed password sign-ins are counted three ways, each over ``WINDOW_SECONDS`` (15 minutes):

- per **account and source** (a source is an IPv4 address or an IPv6 /64,
  ``access.ratelimit.source_of``): after ``FREE_FAILURES`` failures, the next attempt from
  that source on that account must wait a delay that doubles with each further failure
  (1 s, 2 s, 4 s, ... up to ``MAX_DELAY_SECONDS``); earlier attempts are answered 429 with
  ``Retry-After`` before the password is hashed. Only that pair waits.
- per **source**, any account: past ``SOURCE_FAILURES``, an attempt from that source on an
  account it never signed in to is held before it is checked (growing to
  ``MAX_HOLD_SECONDS``). It is never refused: a source is often many people (an office NAT, a
  carrier's CGNAT, a VPN exit, an IPv6 /64), and one of them failing must not keep the others
  out (issue 38, L5). What bounds one machine's guessing and its scrypt CPU is the pair's delay
  above and the per-source request budget every anonymous call spends (access.ratelimit,
  100/min).
- per **account**, any source: past ``ACCOUNT_FAILURES``, an attempt from a source that never
  signed in to the account is held a little before it is checked (growing to
  ``MAX_HOLD_SECONDS``), which slows a guesser spread over many sources. It is never refused.

So the right password is always checked, and always let in, unless this very account failed
from this very source: no one can lock an account, an administrator's included, by failing
on purpose, and no one behind a shared address locks out the others there. A successful
sign-in clears its pair's failures and remembers the source as known to the account (30
days).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from dataclasses import dataclass

from redis.asyncio import Redis

WINDOW_SECONDS = 15 * 60
FREE_FAILURES = 3
MAX_DELAY_SECONDS = 15 * 60
SOURCE_FAILURES = 30
ACCOUNT_FAILURES = 10
MAX_HOLD_SECONDS = 2.0
KNOWN_SOURCE_SECONDS = 30 * 24 * 3600


@dataclass(frozen=True, slots=True)
class Verdict:
    retry_after: int = 0  # > 0: refused for now (429), try again in this many seconds
    hold: float = 0.0  # seconds to hold the attempt before checking the password

    @property
    def refused(self) -> bool:
        return self.retry_after > 0


def _account(login: str) -> str:
    return hashlib.sha256(login.strip().lower().encode()).hexdigest()[:32]


def delay_after(failures: int) -> int:
    """Seconds an account-and-source pair waits after ``failures`` failures."""
    if failures < FREE_FAILURES:
        return 0
    return int(min(MAX_DELAY_SECONDS, 2 ** (failures - FREE_FAILURES)))


class LoginThrottle:
    def __init__(self, redis: Redis, prefix: str = "rl:login:") -> None:
        self._redis = redis
        self._prefix = prefix

    def _keys(self, login: str, source: str) -> tuple[str, str, str, str]:
        account = _account(login)
        p = self._prefix
        return (
            f"{p}pair:{account}:{source}",
            f"{p}src:{source}",
            f"{p}acct:{account}",
            f"{p}known:{account}:{source}",
        )

    async def check(self, login: str, source: str) -> Verdict:
        """Before the password is hashed: refuse, hold, or go ahead (one round trip)."""
        pair, src, acct, known = self._keys(login, source)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hmget(pair, "n", "last")
            pipe.get(src)
            pipe.get(acct)
            pipe.exists(known)
            (n, last), src_n, acct_n, is_known = await pipe.execute()
        now = time.time()
        failures = int(n or 0)
        wait = delay_after(failures)
        if wait and last is not None and now < float(last) + wait:
            return Verdict(retry_after=max(1, math.ceil(float(last) + wait - now)))
        if is_known:
            return Verdict()  # this account signed in from here before: not held
        holds = [
            _hold(int(src_n or 0) - SOURCE_FAILURES),
            _hold(int(acct_n or 0) - ACCOUNT_FAILURES),
        ]
        return Verdict(hold=max(holds))

    async def failed(self, login: str, source: str) -> None:
        pair, src, acct, _ = self._keys(login, source)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(pair, "n", 1)
            pipe.hset(pair, "last", repr(time.time()))
            pipe.expire(pair, WINDOW_SECONDS)
            for key in (src, acct):  # a fixed window from the first failure
                pipe.set(key, 0, ex=WINDOW_SECONDS, nx=True)
                pipe.incr(key)
            await pipe.execute()

    async def succeeded(self, login: str, source: str) -> None:
        pair, _, _, known = self._keys(login, source)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.delete(pair)
            pipe.set(known, b"1", ex=KNOWN_SOURCE_SECONDS)
            await pipe.execute()


def _hold(over: int) -> float:
    """Seconds to hold an attempt ``over`` failures past a threshold (0: not past it)."""
    return 0.0 if over < 0 else min(MAX_HOLD_SECONDS, 0.25 * 2 ** (over / 4))


async def hold(verdict: Verdict) -> None:
    if verdict.hold > 0:
        await asyncio.sleep(verdict.hold)
