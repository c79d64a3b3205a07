"""Item 3: no header escapes the rate limit. Issue 31 M4: sign-in throttling slows guessers per
account and source and never locks the owner out (a busy source is held, never refused: issue
38, L5, tests/security/test_tenants_apart.py); L6: an IPv6 /64 is one source."""

from __future__ import annotations

import asyncio
import itertools

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

from access.login import ACCOUNT_FAILURES, MAX_HOLD_SECONDS, Verdict
from access.ratelimit import source_of
from api.ratelimit import CONSOLE_LIMIT
from tests.access.conftest import BASE
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


def _from(app: FastAPI, address: str) -> httpx.AsyncClient:
    """A client whose requests come from ``address``."""
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url=BASE)


async def _sign_in(
    client: httpx.AsyncClient, client_id: str, username: str, password: str
) -> httpx.Response:
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT}
    return await client.post(
        "/auth/oauth/authorize",
        params=params,
        data={"username": username, "password": password, "decision": "approve"},
    )


async def test_m4_no_one_can_lock_the_owner_out(
    app: FastAPI, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 M4: failures spread over many sources (the old per-account lockout took 10)
    never refuse the right password from a fresh source; the guessing sources wait, and past
    ACCOUNT_FAILURES each attempt from a source new to the account is held a little longer."""
    held: list[float] = []

    async def record(verdict: Verdict) -> None:  # the hold each attempt gets, without waiting
        held.append(verdict.hold)  # its ~15 s out: what matters is who is held how long

    monkeypatch.setattr("authserver.throttle.hold", record)
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id)
    attackers = [_from(app, f"198.51.100.{i}") for i in range(1, 9)]
    statuses = []
    for attacker in attackers:
        for _ in range(3):
            statuses.append((await _sign_in(attacker, client_id, user.username, "x")).status_code)
    assert statuses == [401] * 24
    # The attacker's own source must wait before its next try (the right password included).
    r = await _sign_in(attackers[-1], client_id, user.username, PASSWORD)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    async with _from(app, "203.0.113.7") as owner:
        r = await _sign_in(owner, client_id, user.username, PASSWORD)
        assert r.status_code == 302, r.text
    for attacker in attackers:
        await attacker.aclose()
    # Held: not the first ACCOUNT_FAILURES attempts; then longer and longer, up to the cap; the
    # owner from a fresh source is held too (the refused attempt is not: it is never checked).
    assert held[:ACCOUNT_FAILURES] == [0.0] * ACCOUNT_FAILURES and len(held) == 24 + 1
    later = held[ACCOUNT_FAILURES:]
    assert all(0 < a < b for a, b in itertools.pairwise(later) if b < MAX_HOLD_SECONDS), later
    assert later[-1] == MAX_HOLD_SECONDS and max(later) == MAX_HOLD_SECONDS, later


async def test_m4_delays_grow_per_account_and_source(app: FastAPI, world: World) -> None:
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id)
    async with _from(app, "2001:db8:1::5") as guesser, _from(app, "2001:db8:1::6") as same64:
        assert [
            (await _sign_in(guesser, client_id, user.username, "x")).status_code for _ in range(3)
        ] == [401] * 3
        waits = []
        for _ in range(2):
            r = await _sign_in(guesser, client_id, user.username, "x")
            assert r.status_code == 429, r.text
            waits.append(int(r.headers["retry-after"]))
            # Another address of the same /64 is the same source: it waits too.
            assert (await _sign_in(same64, client_id, user.username, "x")).status_code == 429
            await asyncio.sleep(waits[-1])
            assert (await _sign_in(guesser, client_id, user.username, "x")).status_code == 401
        assert waits == [1, 2]
        # Another account from that source is not delayed by this pair.
        other = await world.user()
        r = await _sign_in(guesser, client_id, other.username, PASSWORD)
        assert r.status_code == 302, r.text


async def test_l6_an_ipv6_64_is_one_anonymous_budget(app: FastAPI) -> None:
    remaining = []
    for address in ("2001:db8:2::1", "2001:db8:2::ffff:1", "2001:db8:2:0:1:2:3:4"):
        async with _from(app, address) as c:
            r = await c.get("/v1/_probe/bare")
            remaining.append(int(r.headers["x-ratelimit-remaining"]))
    assert remaining == [99, 98, 97]
    assert source_of("2001:db8:2::1") == "2001:db8:2::/64"
    assert source_of("::ffff:192.0.2.1") == "192.0.2.1"
    assert source_of("192.0.2.1") == "192.0.2.1"


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
