"""Bearer tokens: scopes, admin, bad tokens, JWKS refresh on an unknown kid, opaque tokens."""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

import httpx
from fastapi import FastAPI
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from redis.asyncio import Redis
from sqlalchemy import update

from core.security import encrypt_secret
from db.models.access import OAuthSigningKey, OAuthToken
from tests.access.conftest import BASE
from tests.factories import World


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def claims(uid: str, **overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    values: dict[str, Any] = {
        "iss": BASE + "/auth",
        "aud": BASE,
        "sub": uid,
        "scope": "user:read",
        "role": "user",
        "iat": now,
        "exp": now + 600,
        "jti": secrets.token_hex(8),
    }
    values.update(overrides)
    return values


def sign(app: FastAPI, payload: dict[str, Any], key: KeySet | RSAKey | None = None) -> str:
    keyset = key or app.state.auth_server.keys.signing_keyset()
    return jwt.encode({"alg": "RS256", "typ": "at+jwt"}, payload, keyset)


async def test_missing_token_is_401_with_challenge(client: httpx.AsyncClient) -> None:
    r = await client.get("/v1/users/me")
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert r.json()["type"].endswith("/errors/unauthorized")
    assert "x-ratelimit-remaining" in r.headers


async def test_missing_scope_is_403_naming_it(client: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    token = await world.token(user.uid, "openid email")
    r = await client.get("/v1/users/me", headers=bearer(token))
    assert r.status_code == 403
    assert r.json()["type"].endswith("/errors/insufficient-scope")
    assert "user:read" in r.json()["detail"]


async def test_profile_counts_as_user_read(client: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    token = await world.token(user.uid, "openid profile")
    assert (await client.get("/v1/users/me/profile", headers=bearer(token))).status_code == 200
    r = await client.patch(
        "/v1/users/me/profile",
        headers=bearer(token),
        json={"display_name": "New", "idempotency_key": "k1"},
    )
    assert r.status_code == 403 and "user:write" in r.json()["detail"]


async def test_admin_passes_every_scope_check(client: httpx.AsyncClient, world: World) -> None:
    admin = await world.user(role="admin")
    token = await world.token(admin.uid, "openid")
    assert (await client.get("/v1/users/me", headers=bearer(token))).status_code == 200
    r = await client.patch(
        "/v1/users/me/profile",
        headers=bearer(token),
        json={"display_name": "Boss", "idempotency_key": secrets.token_hex(4)},
    )
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["display_name"] == "Boss"


async def test_bad_tokens_are_401(app: FastAPI, client: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    good = sign(app, claims(user.uid))
    assert (await client.get("/v1/users/me", headers=bearer(good))).status_code == 200
    header, payload, signature = good.split(".")
    bad = {
        "expired": sign(app, claims(user.uid, exp=int(time.time()) - 120)),
        "audience": sign(app, claims(user.uid, aud="https://elsewhere.example")),
        "issuer": sign(app, claims(user.uid, iss="https://evil.example/auth")),
        "tampered": f"{header}.{payload[:-4]}AAAA.{signature}",
        "garbage": "not.a.jwt",
        "foreign key": sign(app, claims(user.uid), RSAKey.generate_key(2048)),
    }
    for name, token in bad.items():
        r = await client.get("/v1/users/me", headers=bearer(token))
        assert r.status_code == 401, (name, r.text)
        assert r.json()["type"].endswith("/errors/unauthorized"), name
        assert r.headers["www-authenticate"].startswith("Bearer"), name


async def test_unknown_kid_refreshes_the_jwks(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    jwks = app.state.token_verifier.jwks
    await client.get("/v1/users/me", headers=bearer(await world.token(user.uid, "user:read")))
    # A new signing key appears at the AS (rotation); the API has not seen its kid yet.
    kid = "rotated-" + secrets.token_hex(4)
    key = RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig", "alg": "RS256"})
    settings = world.settings
    async with world.sessions() as s:
        s.add(
            OAuthSigningKey(
                kid=kid,
                alg="RS256",
                private_key_encrypted=encrypt_secret(
                    key.as_pem(private=True).decode(), settings.master_key, settings.master_key_id
                ),
                public_jwk={**key.as_dict(private=False), "kid": kid, "use": "sig", "alg": "RS256"},
                active=False,  # published only after the AS reloads; see below
            )
        )
        await s.commit()
    try:
        token = sign(app, claims(user.uid), KeySet([key]))
        async with world.sessions() as s:
            await s.execute(
                update(OAuthSigningKey).where(OAuthSigningKey.kid == kid).values(active=True)
            )
            await s.commit()
        app.state.auth_server.keys.reload()
        jwks.min_refresh_seconds = 0.0
        before = jwks.fetches
        r = await client.get("/v1/users/me", headers=bearer(token))
        assert r.status_code == 200, r.text
        assert jwks.fetches == before + 1
    finally:
        async with world.sessions() as s:
            await s.execute(
                update(OAuthSigningKey).where(OAuthSigningKey.kid == kid).values(active=False)
            )
            await s.commit()
        app.state.auth_server.keys.reload()


async def test_opaque_token_via_introspection_cached(
    client: httpx.AsyncClient, world: World, redis: Redis
) -> None:
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, token_format="opaque")
    token = await world.token(user.uid, "user:read", client_id=client_id)
    assert token.count(".") == 0
    r = await client.get("/v1/users/me", headers=bearer(token))
    assert r.status_code == 200, r.text
    cache_key = "introspect:" + hashlib.sha256(token.encode()).hexdigest()
    assert 0 < await redis.ttl(cache_key) <= 300
    # Revoked at the AS: the cached answer still holds (spec: cached 5 minutes)...
    async with world.sessions() as s:
        await s.execute(
            update(OAuthToken)
            .where(OAuthToken.client_id == client_id)
            .values(revoked_at=OAuthToken.issued_at)
        )
        await s.commit()
    assert (await client.get("/v1/users/me", headers=bearer(token))).status_code == 200
    # ...until the cache entry goes; then introspection says inactive.
    await redis.delete(cache_key)
    assert (await client.get("/v1/users/me", headers=bearer(token))).status_code == 401


async def test_legacy_route_401_shape(client: httpx.AsyncClient) -> None:
    r = await client.get("/users/profile", headers=bearer("nonsense"))
    assert r.status_code == 401
    body = r.json()
    assert body["error"] == "unauthorized" and body["code"] == 401 and body["message"]
