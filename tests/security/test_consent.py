"""Items 8 and 15: consent is per scope, users can revoke it, and full profiles need it."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import httpx
from authlib.common.security import generate_token
from fastapi import FastAPI
from sqlalchemy import select

from db.models.access import OAuthConsent
from tests.access.test_oauth_flow import TOKEN_URL, login_and_consent, oauth_client
from tests.factories import ProjectCreds, World
from tests.security.conftest import bearer, slug


def _headers(creds: ProjectCreds) -> dict[str, str]:
    return {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}


def _lock(uid: str) -> dict[str, str]:
    return {
        "user_uid": uid,
        "currency": "MCC",
        "amount": "1",
        "reason": "bid",
        "expires_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
        "idempotency_key": secrets.token_hex(6),
    }


async def test_item8_consent_to_openid_grants_nothing_over_funds(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    """A user signs in to a project's app with `openid profile` only (the OAuth flow): the
    project may store attributes on them but not lock their funds."""
    user = await world.user()
    creds = await world.project()
    client_id, _ = await world.oauth_client(creds.project_id, public=True)
    verifier = generate_token(48)
    async with oauth_client(app, client_id, None) as oauth:
        location = await login_and_consent(oauth, user.username, verifier)
        await oauth.fetch_token(TOKEN_URL, authorization_response=location, code_verifier=verifier)
    r = await client.post("/v1/funds/lock", json=_lock(user.uid), headers=_headers(creds))
    assert r.status_code == 403 and slug(r) == "user-not-authorized-for-project", r.text
    assert r.json()["required_scope"] == "funds:manage"
    attribute = {"attribute_key": "k", "attribute_value": 1, "idempotency_key": "a1"}
    r = await client.post(
        f"/v1/users/{user.uid}/attributes", json=attribute, headers=_headers(creds)
    )
    assert r.status_code == 200, r.text


async def test_item8_users_list_and_revoke_their_grants(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    creds = await world.project()
    await world.consent(user.uid, creds.project_id, ["profile", "funds:read"])
    read = bearer(await world.token(user.uid, "user:read"))
    write = bearer(await world.token(user.uid, "user:write"))
    listed = await client.get("/v1/users/me/authorizations", headers=read)
    assert listed.status_code == 200, listed.text
    [grant] = listed.json()["data"]
    assert grant["id"] == str(creds.project_id)
    assert grant["attributes"]["scopes"] == ["funds:read", "profile"]
    path = f"/v1/funds/locked/{user.uid}"
    assert (await client.get(path, headers=_headers(creds))).status_code == 200

    r = await client.delete(
        f"/v1/users/me/authorizations/{creds.project_id}",
        headers={**write, "Idempotency-Key": "revoke-1"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["revoked_at"]
    refused = await client.get(path, headers=_headers(creds))
    assert refused.status_code == 403 and slug(refused) == "user-not-authorized-for-project"
    assert (await client.get("/v1/users/me/authorizations", headers=read)).json()["data"] == []
    again = await client.delete(
        f"/v1/users/me/authorizations/{creds.project_id}",
        headers={**write, "Idempotency-Key": "revoke-2"},
    )
    assert again.status_code == 404
    async with world.sessions() as s:
        row = await s.scalar(
            select(OAuthConsent).where(
                OAuthConsent.user_uid == user.uid, OAuthConsent.project_id == creds.project_id
            )
        )
    assert row is not None and row.revoked_at is not None


async def test_item15_full_profile_needs_consent_and_email_scope(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    stranger_project = await world.project()
    r = await client.get(f"/v1/users/{user.uid}/full-profile", headers=_headers(stranger_project))
    assert r.status_code == 403 and slug(r) == "user-not-authorized-for-project"

    without_email, with_email = await world.project(), await world.project()
    await world.consent(user.uid, without_email.project_id, ["profile"])
    await world.consent(user.uid, with_email.project_id, ["profile", "email"])
    r = await client.get(f"/v1/users/{user.uid}/full-profile", headers=_headers(without_email))
    assert r.status_code == 200 and r.json()["data"]["attributes"]["email"] is None
    r = await client.get(f"/v1/users/{user.uid}/full-profile", headers=_headers(with_email))
    assert r.json()["data"]["attributes"]["email"] == user.email

    # Another user's token sees only what is public; one's own e-mail needs `email`.
    other = await world.user()
    peek = bearer(await world.token(other.uid, "user:read email"))
    attrs = (await client.get(f"/v1/users/{user.uid}/full-profile", headers=peek)).json()
    assert attrs["data"]["attributes"]["email"] is None
    assert attrs["data"]["attributes"]["wallet_address"] is None
    own = bearer(await world.token(user.uid, "user:read"))
    assert (await client.get("/v1/users/me", headers=own)).json()["data"]["attributes"][
        "email"
    ] is None
    own_email = bearer(await world.token(user.uid, "user:read email"))
    me = await client.get("/v1/users/me", headers=own_email)
    assert me.json()["data"]["attributes"]["email"] == user.email
