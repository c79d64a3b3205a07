"""Bearer token verification: JWTs against the authorization server's JWKS, opaque tokens
through RFC 7662 introspection (cached in Redis for 5 minutes).

Both talk to the AS over HTTP (an ``httpx.AsyncClient``), so an external AS works; in-process
the client simply uses an ASGI transport onto this same app.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import RSAKey
from redis.asyncio import Redis

from access import revocation

INTROSPECTION_TTL = 300  # spec: introspection results cached 5 minutes
_LEEWAY = 30
_ACCESS_TYPES = ("at+jwt", "application/at+jwt")
# Called before a fresh introspection (nothing cached for the token): the API counts the
# outside caller there, so made-up tokens spend their sender's budget first.
BeforeIntrospection = Callable[[], Awaitable[object]]


class InvalidToken(Exception):
    """The token is missing, malformed, expired, revoked or not for us."""


class AuthServerUnavailable(Exception):
    """The authorization server could not be asked (JWKS or introspection)."""


class JwksCache:
    """Public keys by kid, refreshed when an unknown kid shows up and at least every
    ``max_age_seconds`` (the AS's Cache-Control), so a retired key stops verifying."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        url: str,
        min_refresh_seconds: float = 5.0,
        max_age_seconds: float = 300.0,
    ):
        self._http = http
        self._url = url
        self.min_refresh_seconds = min_refresh_seconds
        self.max_age_seconds = max_age_seconds
        self._keys: dict[str, RSAKey] = {}
        self._fetched_at = 0.0
        self._lock = asyncio.Lock()
        self.fetches = 0

    async def key(self, kid: str) -> RSAKey | None:
        age = time.monotonic() - self._fetched_at
        if kid in self._keys and age < self.max_age_seconds:
            return self._keys[kid]
        async with self._lock:
            age = time.monotonic() - self._fetched_at
            # Throttled: a flood of made-up kids must not become a flood of JWKS fetches.
            stale = age >= self.max_age_seconds
            if stale or (kid not in self._keys and age >= self.min_refresh_seconds):
                await self._refresh()
        return self._keys.get(kid)

    async def _refresh(self) -> None:
        try:
            response = await self._http.get(self._url)
            response.raise_for_status()
            keys = response.json()["keys"]
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            raise AuthServerUnavailable(f"JWKS fetch failed: {type(exc).__name__}") from exc
        self.fetches += 1
        self._fetched_at = time.monotonic()
        self._keys = {k["kid"]: RSAKey.import_key(k) for k in keys if k.get("kty") == "RSA"}


class Introspector:
    def __init__(
        self, http: httpx.AsyncClient, url: str, client_id: str, client_secret: str, redis: Redis
    ) -> None:
        self._http = http
        self._url = url
        self._auth = (client_id, client_secret)
        self._redis = redis

    async def introspect(
        self, token: str, before: BeforeIntrospection | None = None
    ) -> dict[str, Any]:
        key = revocation.INTROSPECT_CACHE + hashlib.sha256(token.encode()).hexdigest()
        cached = await self._redis.get(key)
        if cached is not None:
            result: dict[str, Any] = json.loads(cached)
            return result
        if before is not None:
            await before()
        try:
            response = await self._http.post(
                self._url, data={"token": token, "token_type_hint": "access_token"}, auth=self._auth
            )
            response.raise_for_status()
            result = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise AuthServerUnavailable(f"introspection failed: {type(exc).__name__}") from exc
        ttl = INTROSPECTION_TTL
        if result.get("active") and isinstance(result.get("exp"), int):
            ttl = max(1, min(ttl, result["exp"] - int(time.time())))
        await self._redis.set(key, json.dumps(result), ex=ttl)
        return result


def _header(token: str) -> dict[str, Any]:
    try:
        segment = token.split(".", 1)[0]
        header = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidToken("The token is not a well-formed JWT") from exc
    if not isinstance(header, dict):
        raise InvalidToken("The token is not a well-formed JWT")
    return header


@dataclass(frozen=True, slots=True)
class _Verified:
    claims: dict[str, Any]
    key: RSAKey  # the key that verified the signature: a hit needs it still published
    kid: str
    until: float  # the token's exp (unix seconds): verified afresh after it


class TokenVerifier:
    """Verifies bearer tokens. A JWT whose signature and claims were verified is remembered
    (bounded LRU, ``max_verified`` tokens) until its ``exp``, and only while the JWKS still
    publishes the key that signed it: the RSA check and the claim parsing were most of the
    access layer's CPU. The revocation check is never cached: ``access_token`` makes it on
    every call, and ``access_claims`` hands it to the caller (api.auth.deps folds it into the
    rate limit's round trip)."""

    def __init__(
        self,
        jwks: JwksCache,
        introspector: Introspector,
        issuer: str,
        audience: str,
        redis: Redis | None = None,
        max_verified: int = 10_000,
    ) -> None:
        self.jwks = jwks
        self.introspector = introspector
        self.issuer = issuer
        self.audience = audience
        self._redis = redis
        self.max_verified = max_verified
        self._verified: OrderedDict[tuple[str | None, str], _Verified] = OrderedDict()

    def revocation_key(self, claims: dict[str, Any]) -> str | None:
        """The Redis key that marks this token revoked (None: nothing to check)."""
        return revocation.revocation_key(claims) if self._redis is not None else None

    async def id_token_revoked(self, claims: dict[str, Any]) -> bool:
        """Whether an ID token's user had their tokens at its client revoked since it was
        issued (one GET; the legacy routes only)."""
        audience = claims.get("aud")
        client = audience[0] if isinstance(audience, list) and audience else audience
        if self._redis is None or not client:
            return False
        mark = await self._redis.get(revocation.subject_key(str(client), str(claims["sub"])))
        return revocation.id_token_revoked(claims, mark)

    async def _check_not_revoked(self, claims: dict[str, Any]) -> None:
        key = self.revocation_key(claims)
        if key is not None and self._redis is not None and await self._redis.exists(key):
            raise InvalidToken("The token has been revoked")

    async def access_token(self, token: str) -> dict[str, Any]:
        """Claims of a valid, unrevoked access token (iss, aud, exp checked), JWT or opaque."""
        claims, revocable = await self.access_claims(token)
        if revocable:
            await self._check_not_revoked(claims)
        return claims

    async def access_claims(
        self, token: str, before_introspection: BeforeIntrospection | None = None
    ) -> tuple[dict[str, Any], bool]:
        """(claims, revocable) of a valid access token; when ``revocable``, the caller must
        still check ``revocation_key(claims)`` (introspected tokens were checked by the AS).
        ``before_introspection`` runs when an opaque token must be introspected afresh."""
        if token.count(".") == 2:
            return await self._verified_jwt(token, self.audience), True
        result = await self.introspector.introspect(token, before_introspection)
        if not result.get("active"):
            raise InvalidToken("The token is not active")
        # Introspection also knows refresh tokens: only an access token may call the API.
        if result.get("token_type") != "access_token":
            raise InvalidToken("Not an access token (a refresh token cannot call /v1)")
        if result.get("iss") != self.issuer or result.get("aud") != self.audience:
            raise InvalidToken("The token was not issued for this API")
        return result, False

    @staticmethod
    def is_id_token(token: str) -> bool:
        """Whether ``token`` presents itself as an ID token: a JWT not typed as an access token
        (RFC 9068 ``at+jwt``). Only the header is read; ``id_token`` verifies it."""
        if token.count(".") != 2:
            return False
        try:
            typ = str(_header(token).get("typ", "")).lower()
        except InvalidToken:
            return False
        return typ not in _ACCESS_TYPES

    async def id_token(self, token: str) -> dict[str, Any]:
        """Claims of an ID token of our identity provider: its audience is the OAuth client it
        was issued to (the routes that take ID tokens decide which clients count), never this
        API."""
        if not self.is_id_token(token):
            raise InvalidToken("Not an ID token")
        claims = await self._verified_jwt(token, None)
        audience = claims.get("aud")
        clients = audience if isinstance(audience, list) else [audience]
        if not clients or self.audience in clients:
            raise InvalidToken("The token was not issued to an OAuth client")
        return claims

    async def _verified_jwt(self, token: str, audience: str | None) -> dict[str, Any]:
        """``_jwt`` (and, for the API's audience, the access-token type), remembered."""
        entry = (audience, token)
        hit = self._verified.get(entry)
        # A hit needs the signing key still published: a retired key stops verifying.
        if hit is not None and time.time() < hit.until and await self.jwks.key(hit.kid) is hit.key:
            self._verified.move_to_end(entry)
            return dict(hit.claims)
        claims, key = await self._jwt(token, audience=audience)
        header = _header(token)
        if audience is not None and str(header.get("typ", "")).lower() not in _ACCESS_TYPES:
            raise InvalidToken("Not an access token (an ID token cannot call /v1)")
        exp = claims.get("exp")
        if isinstance(exp, int | float) and self.max_verified > 0:
            self._verified[entry] = _Verified(dict(claims), key, str(header.get("kid")), exp)
            self._verified.move_to_end(entry)
            while len(self._verified) > self.max_verified:
                self._verified.popitem(last=False)
        return claims

    async def _jwt(self, token: str, audience: str | None) -> tuple[dict[str, Any], RSAKey]:
        """The verified claims, and the key that verified them."""
        header = _header(token)
        if header.get("alg") != "RS256":
            raise InvalidToken("Unsupported token algorithm")
        kid = header.get("kid")
        key = await self.jwks.key(str(kid)) if kid else None
        if key is None:
            raise InvalidToken("The token is signed by an unknown key")
        try:
            decoded = jwt.decode(token, key, algorithms=["RS256"])
            checks: dict[str, Any] = {
                "iss": {"essential": True, "value": self.issuer},
                "exp": {"essential": True},
                "sub": {"essential": True},
                "aud": {"essential": True},
            }
            if audience is not None:
                checks["aud"]["value"] = audience
            jwt.JWTClaimsRegistry(leeway=_LEEWAY, **checks).validate(decoded.claims)
        except JoseError as exc:
            raise InvalidToken(f"Invalid token: {exc.error}") from exc
        except ValueError as exc:
            raise InvalidToken("The token is not a well-formed JWT") from exc
        return dict(decoded.claims), key
