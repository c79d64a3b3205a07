"""A fresh sign-in for the sensitive owner's actions (issue 44): rolling a project's API secret
or its OAuth client's secret takes a token of the gateway's own sign-in made within
FRESH_SIGNIN_SECONDS (access/fresh.py, the rule the wallet change uses too:
tests/engine/test_withdrawal_controls.py::test_a_new_wallet_needs_a_fresh_sign_in_and_cools_off).
"""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from tests.factories import World

ROLLS = {
    "api secret": "/v1/projects/{pid}/api-secret/roll",
    "oauth client secret": "/v1/projects/{pid}/oauth-client/secret/roll",
    "oauth client secret (deprecated path)": "/v1/projects/oauth-client/secret/roll",
}


@pytest.mark.parametrize("action", sorted(ROLLS))
async def test_a_secret_roll_needs_a_fresh_sign_in(
    client: httpx.AsyncClient, world: World, action: str
) -> None:
    owner = await world.user()
    project = await world.project(owner_uid=owner.uid)
    path = ROLLS[action].format(pid=project.project_id)
    named = {"X-Project-ID": str(project.project_id)}

    async def roll(token: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}", **named}
        keyed = "api-secret" not in path  # the OAuth client's roll takes an idempotency key
        body = {"idempotency_key": uuid.uuid4().hex} if keyed else {}
        return await client.post(path, json=body, headers=headers)

    signed_in = int(time.time()) - 301  # FRESH_SIGNIN_SECONDS is 300
    stale = await roll(await world.token(owner.uid, "openid", auth_time=signed_in))
    assert stale.status_code == 401, stale.text
    assert stale.json()["type"].endswith("/fresh-sign-in-required")
    assert stale.json()["max_age"] == 300
    assert 'error="insufficient_user_authentication"' in stale.headers["www-authenticate"]

    fresh = await roll(await world.token(owner.uid, "openid", auth_time=int(time.time()) - 5))
    assert fresh.status_code == 200, fresh.text
    attrs = fresh.json()["data"]["attributes"]
    assert attrs.get("api_secret") or attrs.get("client_secret")
