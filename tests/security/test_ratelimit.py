"""Item 3: no header escapes the rate limit; failed logins are limited per account and IP."""

from __future__ import annotations

import httpx
from redis.asyncio import Redis

from api.ratelimit import CONSOLE_LIMIT
from tests.factories import PASSWORD, REDIRECT, World, clear_rate_windows


async def test_item3_credential_headers_do_not_escape_the_limit(
    client: httpx.AsyncClient, redis: Redis
) -> None:
    for headers in (
        {"Authorization": "Bearer x"},
        {"X-Project-ID": "1"},
        {"Authorization": "Basic eDp5"},
    ):
        seen = []
        for _ in range(101):
            seen.append((await client.get("/v1/_probe/bare", headers=headers)).status_code)
        assert seen[:100] == [200] * 100, headers
        assert seen[100] == 429, headers
        # Other public routes and unmatched paths are refused too, while over the budget.
        assert (await client.get("/v1/nowhere", headers=headers)).status_code == 429
        r = await client.get("/auth/oauth/authorize", headers=headers)
        assert r.status_code == 429
        await clear_rate_windows(redis)


async def test_item3_failed_logins_limited_per_account_and_ip(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id)
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT}

    async def login(username: str, password: str) -> int:
        r = await client.post(
            "/auth/oauth/authorize",
            params=params,
            data={"username": username, "password": password, "decision": "approve"},
        )
        return r.status_code

    assert [await login(user.username, "wrong") for _ in range(10)] == [401] * 10
    # The account is now locked for a while, even with the right password.
    assert await login(user.username, PASSWORD) == 429
    # Another account from the same IP still works until the IP's budget is spent.
    other = await world.user()
    assert await login(other.username, PASSWORD) == 302
    spent = [await login(f"nobody{i}", "x") for i in range(25)]
    assert spent.count(401) == 20 and spent[-1] == 429
    assert await login(other.username, PASSWORD) == 429


async def test_item3_the_console_has_a_budget_of_its_own(
    client: httpx.AsyncClient, redis: Redis
) -> None:
    """The console is counted per IP (whatever headers a request carries) in a window of its
    own: its polling does not spend the API's budget, and hammering it is refused."""
    seen = []
    for i in range(CONSOLE_LIMIT + 1):
        headers = {"Authorization": "Bearer x"} if i % 2 else {}
        seen.append((await client.get("/console/signed-out", headers=headers)).status_code)
    assert seen[:CONSOLE_LIMIT] == [200] * CONSOLE_LIMIT
    assert seen[CONSOLE_LIMIT] == 429
    # The API's anonymous budget was not touched by all that.
    r = await client.get("/v1/_probe/bare")
    assert r.status_code == 200 and r.headers["X-RateLimit-Remaining"] == "99"
    await clear_rate_windows(redis)
