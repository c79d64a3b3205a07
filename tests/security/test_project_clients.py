"""Item 9: a project registered through the API gets its OAuth client, its redirect URIs are
set, and users can then authorize it end to end (not only the seeded demo project)."""

from __future__ import annotations

import secrets

import httpx
from authlib.common.security import generate_token
from fastapi import FastAPI
from sqlalchemy import select

from db.models.access import OAuthConsent
from tests.access.test_oauth_flow import TOKEN_URL, login_and_consent, oauth_client
from tests.factories import REDIRECT, World
from tests.security.conftest import bearer


async def test_item9_registered_project_can_be_authorized_by_a_user(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    admin = await world.user(role="admin")
    headers = bearer(await world.token(admin.uid, "openid"))
    body = {
        "name": f"Moon {secrets.token_hex(3)}",
        "allowed_scopes": ["funds:manage", "funds:read"],
        "redirect_uris": ["https://moon.example/cb"],
        "idempotency_key": secrets.token_hex(8),
    }
    r = await client.post("/v1/projects/register", json=body, headers=headers)
    assert r.status_code == 201, r.text
    attrs = r.json()["data"]["attributes"]
    client_id = attrs["oauth_client_id"]
    assert client_id.startswith("cl_") and attrs["redirect_uris"] == ["https://moon.example/cb"]
    assert "funds:manage" in attrs["scopes"] and "mining:write" not in attrs["scopes"]
    project = {"X-Project-ID": attrs["project_id"], "X-API-Key": attrs["api_secret"]}

    # Its redirect URIs are set with the gateway's own sign-in (here the administrator who
    # registered it, the project having no owner), never with the project's key (issue 38).
    owned = f"/v1/projects/{attrs['project_id']}/oauth-client"
    bad = await client.put(
        owned,
        json={"redirect_uris": ["http://evil.example/cb"], "idempotency_key": "r0"},
        headers=headers,
    )
    assert bad.status_code == 422
    keyed = await client.put(
        owned, json={"redirect_uris": [REDIRECT], "idempotency_key": "r1"}, headers=project
    )
    assert keyed.status_code == 401, keyed.text
    r = await client.put(
        owned, json={"redirect_uris": [REDIRECT], "idempotency_key": "r1"}, headers=headers
    )
    assert r.status_code == 200, r.text
    got = await client.get("/v1/projects/oauth-client", headers=project)
    assert got.json()["data"]["attributes"]["redirect_uris"] == [REDIRECT]

    user = await world.user()
    verifier = generate_token(48)
    async with oauth_client(app, client_id, None) as oauth:
        location = await login_and_consent(oauth, user.username, verifier)
        token = await oauth.fetch_token(
            TOKEN_URL, authorization_response=location, code_verifier=verifier
        )
        assert token["access_token"]
    async with world.sessions() as s:
        consent = await s.scalar(
            select(OAuthConsent).where(
                OAuthConsent.user_uid == user.uid,
                OAuthConsent.project_id == int(attrs["project_id"]),
            )
        )
    assert consent is not None and "user:read" in consent.scopes
