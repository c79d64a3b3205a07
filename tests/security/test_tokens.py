"""Items 1, 2, 11, 15: which token may do what."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from authserver.issue import issue_token
from db.models.access import OAuthSigningKey
from tests.factories import World
from tests.security.conftest import bearer, slug


async def test_item1_refresh_token_is_not_a_bearer_credential(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    project = await world.project()
    for token_format in ("jwt", "opaque"):
        client_id, _ = await world.oauth_client(project.project_id, token_format=token_format)
        issued = await asyncio.to_thread(
            issue_token,
            app.state.auth_server,
            user=user.uid,
            scope="openid user:read",
            client_id=client_id,
            refresh=True,
        )
        ok = await client.get("/v1/users/me", headers=bearer(issued["access_token"]))
        assert ok.status_code == 200, ok.text
        refused = await client.get("/v1/users/me", headers=bearer(issued["refresh_token"]))
        assert refused.status_code == 401, (token_format, refused.text)
        assert slug(refused) == "unauthorized"


async def test_item2_admin_power_only_on_first_party_tokens(
    client: httpx.AsyncClient, world: World
) -> None:
    admin = await world.user(role="admin")
    third_party = await world.project()
    client_id, _ = await world.oauth_client(third_party.project_id)
    foreign = await world.token(admin.uid, "openid", client_id=client_id)
    own = await world.token(admin.uid, "openid")  # the gateway's first-party client

    for path in ("/v1/admin/projects/applications", "/v1/admin/reconciliation/drifts"):
        r = await client.get(path, headers=bearer(foreign))
        assert r.status_code == 403, (path, r.text)
        assert slug(r) == "admin-required"
        assert (await client.get(path, headers=bearer(own))).status_code == 200, path
    # Nor does the admin role pass scope checks on a project's token.
    r = await client.get("/v1/users/me", headers=bearer(foreign))
    assert r.status_code == 403 and slug(r) == "insufficient-scope"
    assert (await client.get("/v1/users/me", headers=bearer(own))).status_code == 200


async def _issue(app: FastAPI, uid: str, client_id: str) -> dict[str, Any]:
    issued: dict[str, Any] = await asyncio.to_thread(
        issue_token,
        app.state.auth_server,
        user=uid,
        scope="openid user:read",
        client_id=client_id,
        refresh=True,
    )
    return issued


async def test_item11_revoked_access_jwt_stops_working_at_once(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    project = await world.project()
    client_id, secret = await world.oauth_client(project.project_id)
    assert secret is not None
    issued = await _issue(app, user.uid, client_id)
    access = issued["access_token"]
    for _ in range(2):  # the second call is served from the verifier's memory of the token
        assert (await client.get("/v1/users/me", headers=bearer(access))).status_code == 200
    assert (app.state.token_verifier.audience, access) in app.state.token_verifier._verified
    r = await client.post("/auth/oauth/revoke", data={"token": access}, auth=(client_id, secret))
    assert r.status_code == 200, r.text
    r = await client.get("/v1/users/me", headers=bearer(access))
    assert r.status_code == 401 and "revoked" in r.json()["detail"]
    # Checked in the rate limit's round trip: counted against the IP, not the user.
    assert r.headers["x-ratelimit-limit"] == "100"
    assert await app.state.rate_limiter.count(f"u:{user.uid}:{client_id}") == 2


async def test_item11_refresh_reuse_kills_issued_access_tokens(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    project = await world.project()
    client_id, secret = await world.oauth_client(project.project_id)
    assert secret is not None
    first = await _issue(app, user.uid, client_id)
    form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    rotated = await client.post("/auth/oauth/token", data=form, auth=(client_id, secret))
    assert rotated.status_code == 200, rotated.text
    newest = rotated.json()["access_token"]
    assert (await client.get("/v1/users/me", headers=bearer(newest))).status_code == 200
    # The old refresh token comes back: a thief has it. The whole family dies, access included.
    reuse = await client.post("/auth/oauth/token", data=form, auth=(client_id, secret))
    assert reuse.status_code == 400
    for token in (newest, first["access_token"]):
        assert (await client.get("/v1/users/me", headers=bearer(token))).status_code == 401


async def test_item11_jwks_cache_drops_a_retired_key(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    token = await world.token(user.uid, "user:read")
    assert (await client.get("/v1/users/me", headers=bearer(token))).status_code == 200
    kid = app.state.auth_server.keys.public_jwks()["keys"][0]["kid"]
    jwks = app.state.token_verifier.jwks
    async with world.sessions() as s:  # the AS retires its key (and has a new one)
        await s.execute(
            update(OAuthSigningKey).where(OAuthSigningKey.kid == kid).values(active=False)
        )
        await s.commit()
    app.state.auth_server.keys.reload()
    old_max_age = jwks.max_age_seconds
    jwks.max_age_seconds = 0.0  # the cached copy is past its max-age
    try:
        r = await client.get("/v1/users/me", headers=bearer(token))
        assert r.status_code == 401, r.text
        fresh = await world.token(user.uid, "user:read")
        assert (await client.get("/v1/users/me", headers=bearer(fresh))).status_code == 200
    finally:
        jwks.max_age_seconds = old_max_age
