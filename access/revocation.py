"""Token revocation, shared by the authorization server (which publishes) and the API (which
checks): a revoked access token's ``jti`` is listed in Redis until the token would have expired
anyway, and the introspection cache entry of an opaque one is dropped (so it is asked again).
The API checks the list in the same round trip as the bearer's rate limit
(``access.ratelimit.RateLimiter.hit_unless_revoked``)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import redis

REVOKED_JTI = "revoked:jti:"
INTROSPECT_CACHE = "introspect:"
# The verifier's clock leeway: a revoked token is listed this much past its expiry.
LEEWAY_SECONDS = 60


def revocation_key(claims: dict[str, Any]) -> str | None:
    """The Redis key that marks this token revoked (None: the token has no jti to list)."""
    jti = claims.get("jti")
    return REVOKED_JTI + str(jti) if jti else None


def publish(client: redis.Redis, tokens: Iterable[tuple[str | None, str, datetime]]) -> None:
    """List revoked access tokens, given as (jti, sha256 of the token, its expiry)."""
    with client.pipeline(transaction=False) as pipe:
        for jti, access_hash, expires_at in tokens:
            ttl = int(expires_at.timestamp() - time.time()) + LEEWAY_SECONDS
            if jti and ttl > 0:
                pipe.set(REVOKED_JTI + jti, b"1", ex=ttl)
            pipe.delete(INTROSPECT_CACHE + access_hash)
        pipe.execute()
