"""Token revocation, shared by the authorization server (which publishes) and the API (which
checks), for every kind of token:

- an access token (JWT): its ``jti`` is listed (``revoked:jti:<jti>``) until the token would
  have expired anyway; the API checks it in the same round trip as the bearer's rate limit
  (``access.ratelimit.RateLimiter.hit_unless_revoked``);
- an opaque access token: its introspection cache entry is dropped, so the AS is asked again;
- an ID token (no ``jti``, never stored): any revocation of a user's tokens at a client marks
  ``revoked:sub:<client_id>:<uid>`` with the time; an ID token of that user and client issued
  at or before it is refused (the legacy and developer-onboarding routes take ID tokens).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import redis

REVOKED_JTI = "revoked:jti:"
REVOKED_SUBJECT = "revoked:sub:"
INTROSPECT_CACHE = "introspect:"
# How long an ID token lives (authlib's OpenIDCode default): a subject's mark is kept this long.
ID_TOKEN_SECONDS = 3600
# The verifier's clock leeway: a revoked token is listed this much past its expiry.
LEEWAY_SECONDS = 60


def revocation_key(claims: dict[str, Any]) -> str | None:
    """The Redis key that marks this token revoked (None: the token has no jti to list)."""
    jti = claims.get("jti")
    return REVOKED_JTI + str(jti) if jti else None


@dataclass(frozen=True, slots=True)
class RevokedToken:
    jti: str | None
    access_hash: str  # sha256 of the access token
    expires_at: datetime  # when the access token expires
    client_id: str
    uid: str


def subject_key(client_id: str, uid: str) -> str:
    return f"{REVOKED_SUBJECT}{client_id}:{uid}"


def id_token_revoked(claims: dict[str, Any], revoked_at: bytes | str | None) -> bool:
    """Whether an ID token with ``claims`` was issued at or before its subject's mark."""
    if revoked_at is None:
        return False
    issued = claims.get("iat")
    if not isinstance(issued, int | float):
        return True  # an ID token without iat cannot prove it came after the revocation
    return float(issued) <= float(revoked_at)


def publish(client: redis.Redis, tokens: Iterable[RevokedToken]) -> None:
    """List revoked tokens: each access token's jti, and its (client, user) for ID tokens."""
    now = time.time()
    with client.pipeline(transaction=False) as pipe:
        for token in tokens:
            ttl = int(token.expires_at.timestamp() - now) + LEEWAY_SECONDS
            if token.jti and ttl > 0:
                pipe.set(REVOKED_JTI + token.jti, b"1", ex=ttl)
            pipe.delete(INTROSPECT_CACHE + token.access_hash)
            mark = subject_key(token.client_id, token.uid)
            pipe.set(mark, repr(now).encode(), ex=ID_TOKEN_SECONDS + LEEWAY_SECONDS)
        pipe.execute()
