"""The authorization server end to end, driven by authlib's own OAuth client."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from dataclasses import replace
from typing import Any

import httpx
import httpx2
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client
from fastapi import FastAPI
from sqlalchemy import select

from access.fresh import signed_in_within
from api.auth.deps import principal_from_claims
from api.auth.principal import UserPrincipal
from db.models.access import OAuthConsent
from tests.access.conftest import BASE
from tests.factories import PASSWORD, REDIRECT, World

AUTH = BASE + "/auth"
TOKEN_URL = AUTH + "/oauth/token"


def oauth_client(app: FastAPI, client_id: str, secret: str | None) -> AsyncOAuth2Client:
    return AsyncOAuth2Client(
        client_id=client_id,
        client_secret=secret,
        token_endpoint_auth_method="client_secret_basic" if secret else "none",
        scope="openid profile user:read",
        redirect_uri=REDIRECT,
        code_challenge_method="S256",
        # authlib's httpx integration is built on httpx2; same ASGI transport, its flavour.
        transport=httpx2.ASGITransport(app=app),
        base_url=BASE,
    )


async def login_and_consent(client: AsyncOAuth2Client, username: str, verifier: str) -> str:
    url, _state = client.create_authorization_url(AUTH + "/oauth/authorize", code_verifier=verifier)
    page = await client.request("GET", url, withhold_token=True)
    assert page.status_code == 200, page.text
    assert "Authorize" in page.text and "user:read" in page.text
    answer = await client.request(
        "POST",
        url,
        data={"username": username, "password": PASSWORD, "decision": "approve"},
        withhold_token=True,
    )
    assert answer.status_code == 302, answer.text
    location = answer.headers["location"]
    assert location.startswith(REDIRECT) and "code=" in location
    return location


async def test_code_flow_with_pkce_refresh_rotation_and_reuse_detection(
    app: FastAPI, world: World
) -> None:
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, public=True)
    verifier = generate_token(48)
    async with oauth_client(app, client_id, None) as client:
        location = await login_and_consent(client, user.username, verifier)
        token: dict[str, Any] = await client.fetch_token(
            TOKEN_URL, authorization_response=location, code_verifier=verifier
        )
        assert token["token_type"].lower() == "bearer" and token["expires_in"] == 3600
        me = await client.get("/v1/users/me")
        assert me.status_code == 200, me.text
        assert me.json()["data"]["attributes"]["uid"] == user.uid

        # The ID token serves the legacy routes.
        legacy = await client.get(
            "/users/profile", headers={"Authorization": f"Bearer {token['id_token']}"}
        )
        assert legacy.status_code == 200, legacy.text
        assert legacy.json()["uid"] == user.uid

        # Rotation: a new refresh token each time.
        first_refresh = token["refresh_token"]
        rotated = await client.refresh_token(TOKEN_URL, refresh_token=first_refresh)
        assert rotated["refresh_token"] != first_refresh
        assert (await client.get("/v1/users/me")).status_code == 200

        # Reusing the old one revokes the whole family: the newest stops working too.
        form = {"grant_type": "refresh_token", "client_id": client_id}
        reuse = await client.request(
            "POST", TOKEN_URL, data={**form, "refresh_token": first_refresh}, withhold_token=True
        )
        assert reuse.status_code == 400 and reuse.json()["error"] == "invalid_grant"
        newest = await client.request(
            "POST",
            TOKEN_URL,
            data={**form, "refresh_token": rotated["refresh_token"]},
            withhold_token=True,
        )
        assert newest.status_code == 400 and newest.json()["error"] == "invalid_grant"

    async with world.sessions() as s:
        consent = await s.scalar(
            select(OAuthConsent).where(
                OAuthConsent.user_uid == user.uid, OAuthConsent.project_id == project.project_id
            )
        )
    assert consent is not None and "user:read" in consent.scopes


async def test_confidential_client_flow_and_wrong_secret(app: FastAPI, world: World) -> None:
    user = await world.user()
    project = await world.project()
    client_id, secret = await world.oauth_client(project.project_id)
    verifier = generate_token(48)
    async with oauth_client(app, client_id, "not-the-secret") as bad:
        location = await login_and_consent(bad, user.username, verifier)
        code = httpx.URL(location).params["code"]
        refused = await bad.request(
            "POST",
            TOKEN_URL,
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "code_verifier": verifier,
            },
            auth=(client_id, "not-the-secret"),
        )
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    async with oauth_client(app, client_id, secret) as good:
        location = await login_and_consent(good, user.username, verifier)
        token = await good.fetch_token(
            TOKEN_URL, authorization_response=location, code_verifier=verifier
        )
        assert (await good.get("/v1/users/me")).status_code == 200
        # Revocation (RFC 7009) and introspection (RFC 7662) for the client's own token.
        info = await good.request(
            "POST",
            AUTH + "/oauth/introspect",
            data={"token": token["access_token"]},
            auth=(client_id, secret),
        )
        assert info.json()["active"] is True and info.json()["sub"] == user.uid
        await good.request(
            "POST",
            AUTH + "/oauth/revoke",
            data={"token": token["refresh_token"]},
            auth=(client_id, secret),
        )
        info = await good.request(
            "POST",
            AUTH + "/oauth/introspect",
            data={"token": token["access_token"]},
            auth=(client_id, secret),
        )
        assert info.json()["active"] is False


async def test_public_client_without_pkce_is_refused(
    client: httpx.AsyncClient, world: World
) -> None:
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, public=True)
    r = await client.get(
        "/auth/oauth/authorize",
        params={"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT},
    )
    assert r.status_code == 302
    assert "error=invalid_request" in r.headers["location"]


async def test_wrong_password_and_unknown_client(client: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id)
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT}
    r = await client.post(
        "/auth/oauth/authorize",
        params=params,
        data={"username": user.username, "password": "nope", "decision": "approve"},
    )
    assert r.status_code == 401 and "wrong password" in r.text
    r = await client.get("/auth/oauth/authorize", params={**params, "client_id": "nobody"})
    assert r.status_code == 400 and "does not exist" in r.text


async def test_discovery_and_jwks(client: httpx.AsyncClient) -> None:
    config = (await client.get("/auth/.well-known/openid-configuration")).json()
    assert config["issuer"] == BASE + "/auth"
    assert config["code_challenge_methods_supported"] == ["S256"]
    keys = (await client.get("/auth/.well-known/jwks.json")).json()["keys"]
    assert keys and all("d" not in k for k in keys) and keys[0]["kid"]


def _claims(jwt: str) -> dict[str, Any]:
    payload = jwt.split(".")[1]
    decoded: dict[str, Any] = json.loads(
        base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    )
    return decoded


async def test_access_tokens_carry_the_sign_in_time_through_refreshes(
    app: FastAPI, world: World
) -> None:
    """``auth_time`` is when the user signed in with their password (the authorize step), and
    a refresh keeps it: a refreshed token is never a fresh sign-in (access/fresh.py)."""
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, public=True)
    verifier = generate_token(48)
    before = int(time.time())
    async with oauth_client(app, client_id, None) as client:
        location = await login_and_consent(client, user.username, verifier)
        token = await client.fetch_token(
            TOKEN_URL, authorization_response=location, code_verifier=verifier
        )
        signed_in = _claims(token["access_token"])["auth_time"]
        assert before <= signed_in <= int(time.time())
        await asyncio.sleep(1.1)
        refreshed = await client.refresh_token(TOKEN_URL, refresh_token=token["refresh_token"])
        claims = _claims(refreshed["access_token"])
        assert claims["auth_time"] == signed_in and claims["iat"] > signed_in
    # An opaque token says it through introspection; the API reads it either way.
    opaque_id, _ = await world.oauth_client(project.project_id, token_format="opaque")
    opaque = await world.token(user.uid, "user:read", opaque_id, auth_time=before - 600)
    claims, _ = await app.state.token_verifier.access_claims(opaque)
    assert claims["auth_time"] == before - 600
    assert principal_from_claims(claims).auth_time == before - 600


def test_the_fresh_sign_in_rule() -> None:
    now = 1_700_000_000.0
    fresh = UserPrincipal("u", "user", frozenset(), first_party=True, auth_time=int(now) - 299)
    assert signed_in_within(fresh, 300, now)
    assert not signed_in_within(replace(fresh, auth_time=int(now) - 301), 300, now)
    assert not signed_in_within(replace(fresh, auth_time=None), 300, now)
    assert not signed_in_within(replace(fresh, first_party=False), 300, now)  # a project's app
    assert signed_in_within(replace(fresh, auth_time=int(now) + 30), 300, now)  # clock skew
    assert not signed_in_within(replace(fresh, auth_time=int(now) + 120), 300, now)
