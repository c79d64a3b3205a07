"""Items 1, 2, 11, 15: which token may do what."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from authserver.issue import issue_token
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

    for path in ("/v1/admin/projects/applications", "/v1/admin/mcd/whitelist"):
        r = await client.get(path, headers=bearer(foreign))
        assert r.status_code == 403, (path, r.text)
        assert slug(r) == "admin-required"
        assert (await client.get(path, headers=bearer(own))).status_code == 200, path
    # Nor does the admin role pass scope checks on a project's token.
    r = await client.get("/v1/users/me", headers=bearer(foreign))
    assert r.status_code == 403 and slug(r) == "insufficient-scope"
    assert (await client.get("/v1/users/me", headers=bearer(own))).status_code == 200
