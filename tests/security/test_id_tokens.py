"""Issue 31, M5: the routes that take ID tokens (legacy, developer onboarding) honour the
`email` scope and token revocation, for every kind of token they accept."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client
from fastapi import FastAPI
from solders.keypair import Keypair

from db.models.onboarding import ProjectApplication
from tests.access.test_oauth_flow import AUTH, TOKEN_URL, oauth_client
from tests.factories import PASSWORD, World


async def _tokens(
    app: FastAPI,
    world: World,
    scope: str,
    user: Any = None,
    client_id: str | None = None,
    *,
    first_party: bool = False,
) -> tuple[str, dict[str, Any]]:
    """(client_id, token response) of a code flow with exactly ``scope``, by a project's
    third-party (public) client, or with ``first_party`` a (public) client of the gateway's
    own (new user and client unless given)."""
    user = user or await world.user()
    if client_id is None and first_party:
        client_id, _ = await world.oauth_client(None, public=True, first_party=True)
    elif client_id is None:
        project = await world.project()
        client_id, _ = await world.oauth_client(project.project_id, public=True)
    verifier = generate_token(48)
    client: AsyncOAuth2Client
    async with oauth_client(app, client_id, None) as client:
        url, _ = client.create_authorization_url(
            AUTH + "/oauth/authorize", code_verifier=verifier, scope=scope
        )
        answer = await client.request(
            "POST",
            url,
            data={"username": user.username, "password": PASSWORD, "decision": "approve"},
            withhold_token=True,
        )
        assert answer.status_code == 302, answer.text
        token = await client.fetch_token(
            TOKEN_URL, authorization_response=answer.headers["location"], code_verifier=verifier
        )
    return client_id, dict(token)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_legacy_profile_shows_the_email_only_with_the_email_scope(
    app: FastAPI, client: Any, world: World
) -> None:
    _, plain = await _tokens(app, world, "openid profile")
    for kind in ("id_token", "access_token"):
        r = await client.get("/users/profile", headers=_bearer(plain[kind]))
        assert r.status_code == 200, r.text
        assert r.json()["email"] is None, (kind, r.json())
    _, with_email = await _tokens(app, world, "openid profile email")
    for kind in ("id_token", "access_token"):
        r = await client.get("/users/profile", headers=_bearer(with_email[kind]))
        assert r.status_code == 200 and "@" in r.json()["email"], (kind, r.text)


async def test_a_revoked_token_stops_on_the_id_token_routes(
    app: FastAPI, client: Any, world: World
) -> None:
    """RFC 7009 revocation of the access token: that token and the ID token issued with it
    (same user, same client) are refused on the legacy and developer routes at once (the
    developer routes take the gateway's own sign-in only, issue 38)."""
    for first_party, path in ((False, "/users/profile"), (True, "/v1/projects/applications")):
        scope = "openid profile user:read"
        client_id, token = await _tokens(app, world, scope, first_party=first_party)
        for kind in ("id_token", "access_token"):
            r = await client.get(path, headers=_bearer(token[kind]))
            assert r.status_code == 200, (path, kind, r.text)
        revoked = await client.post(
            "/auth/oauth/revoke",
            data={"token": token["access_token"], "client_id": client_id},
        )
        assert revoked.status_code == 200, revoked.text
        for kind in ("id_token", "access_token"):
            r = await client.get(path, headers=_bearer(token[kind]))
            assert r.status_code == 401, (path, kind, r.text)


async def test_a_new_sign_in_after_a_revocation_works(
    app: FastAPI, client: Any, world: World
) -> None:
    """The ID-token mark covers tokens issued up to the revocation, not the user's next ones
    (ID tokens carry whole seconds: the next sign-in is a second later)."""
    user = await world.user()
    client_id, first = await _tokens(app, world, "openid profile", user)
    await client.post(
        "/auth/oauth/revoke", data={"token": first["access_token"], "client_id": client_id}
    )
    assert (
        await client.get("/users/profile", headers=_bearer(first["id_token"]))
    ).status_code == 401
    await asyncio.sleep(1.1)
    _, second = await _tokens(app, world, "openid profile", user, client_id)
    r = await client.get("/users/profile", headers=_bearer(second["id_token"]))
    assert r.status_code == 200, r.text


async def test_developer_routes_show_the_email_only_with_the_email_scope(
    app: FastAPI, client: Any, world: World
) -> None:
    user = await world.user()
    async with world.sessions() as s:
        s.add(
            ProjectApplication(
                id=uuid.uuid4(), developer_uid=user.uid, developer_email=user.email,
                status="pending", project_name=f"M5 {uuid.uuid4().hex[:6]}",
                mcd_wallet_address=str(Keypair().pubkey()),
            )
        )  # fmt: skip
        await s.commit()
    _, plain = await _tokens(app, world, "openid profile", user, first_party=True)
    _, with_email = await _tokens(app, world, "openid email", user, first_party=True)
    seen = {}
    for name, token in (("plain", plain), ("email", with_email)):
        r = await client.get("/v1/projects/applications", headers=_bearer(token["id_token"]))
        assert r.status_code == 200, r.text
        [application] = r.json()["data"]
        seen[name] = application["attributes"]["developer_email"]
    assert seen == {"plain": None, "email": user.email}
