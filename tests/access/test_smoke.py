from __future__ import annotations

import httpx

from tests.factories import World


async def test_me_with_minted_token(client: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    token = await world.token(user.uid, "user:read")
    r = await client.get("/v1/users/me", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["id"] == user.uid
    assert r.headers["x-ratelimit-limit"] == "100"
