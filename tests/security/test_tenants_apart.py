"""Issue 38 (security review 2026-11-28), the authorization half: tokens bound to their
audience (H1, L6), budgets no one else can spend (M1, M2), sign-in throttling that never shuts
out a shared address (L5), no 500 from a non-ASCII digit (L1), the e-mail rule on the profile
PATCH, and a /readyz that a flood cannot fan out onto the chain RPC. Each test fails on the
code before the issue (the report says with what)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from access.login import SOURCE_FAILURES, Verdict
from api.routes import health
from tests.access.conftest import BASE
from tests.factories import PASSWORD, REDIRECT, World
from tests.security.conftest import bearer


def _from(app: FastAPI, address: str) -> httpx.AsyncClient:
    """A client whose requests come from ``address`` (a source with budgets of its own)."""
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url=BASE)


async def test_m1_in_process_calls_spend_no_ones_budget(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    """130 made-up opaque tokens from 130 sources: each is counted against its own source
    before it is introspected, and none against the in-process authorization server's calls;
    a real opaque token and the console's sign-in still work (before: 503 and "Sign-in
    failed" for a minute, every introspection counted against ip:127.0.0.1)."""
    limiter = app.state.rate_limiter
    flood = [_from(app, f"198.51.100.{i % 250 + 1}") for i in range(130)]
    answers = await asyncio.gather(
        *(c.get("/v1/users/me", headers=bearer(secrets.token_hex(24))) for c in flood)
    )
    for c in flood:
        await c.aclose()
    assert {r.status_code for r in answers} == {401}
    assert await limiter.count("ip:127.0.0.1") == 0
    assert await limiter.count("ip:198.51.100.1") == 1

    user = await world.user()
    project = await world.project()
    opaque_client, _ = await world.oauth_client(project.project_id, token_format="opaque")
    token = await world.token(user.uid, "user:read", client_id=opaque_client)
    async with _from(app, "192.0.2.77") as victim:
        r = await victim.get("/v1/users/me", headers=bearer(token))
    assert r.status_code == 200, r.text

    from tests.console.test_console_http import sign_in

    admin = await world.user("admin")
    async with _from(app, "192.0.2.78") as web:
        done = await sign_in(web, admin.username)
    assert done.status_code == 303, done.text
    assert await limiter.count("ip:127.0.0.1") == 0


async def test_l5_failures_behind_a_shared_address_do_not_lock_the_others_out(
    app: FastAPI, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 failed sign-ins on random accounts from one source (an office NAT): a colleague's
    right password from there still gets in (before: 429 for 15 minutes), held a little like
    every attempt from that busy source on an account it never signed in to."""
    held: list[float] = []

    async def record(verdict: Verdict) -> None:
        held.append(verdict.hold)

    monkeypatch.setattr("authserver.routes.hold", record)
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id)
    colleague = await world.user()
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT}

    async def sign_in(c: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
        data = {"username": username, "password": password, "decision": "approve"}
        return await c.post("/auth/oauth/authorize", params=params, data=data)

    async with _from(app, "192.0.2.44") as office:
        failed = [
            (await sign_in(office, f"nobody-{i}", "x")).status_code
            for i in range(SOURCE_FAILURES + 5)
        ]
        assert failed == [401] * (SOURCE_FAILURES + 5)
        r = await sign_in(office, colleague.username, PASSWORD)
        assert r.status_code == 302, r.text
    assert held[:SOURCE_FAILURES] == [0.0] * SOURCE_FAILURES
    assert all(h > 0 for h in held[SOURCE_FAILURES:]), held  # the busy source is slowed
    # Signed in from there once, the colleague is no longer held there.
    async with _from(app, "192.0.2.44") as office:
        assert (await sign_in(office, colleague.username, PASSWORD)).status_code == 302
    assert held[-1] == 0.0


async def test_l1_a_non_ascii_digit_in_project_headers_is_a_401(
    client: httpx.AsyncClient, world: World
) -> None:
    project = await world.project()
    for headers in (
        {"X-Project-ID": b"\xb2", "X-API-Key": "x"},
        {
            "X-Project-ID": str(project.project_id),
            "X-Timestamp": b"\xb2",
            "X-Signature": "sha256=" + "0" * 64,
        },
    ):
        r = await client.get("/v1/projects/oauth-client", headers=headers)  # type: ignore[arg-type]
        assert r.status_code == 401, r.text
        assert r.headers["content-type"] == "application/problem+json"


def test_l1_the_sdk_refuses_a_non_ascii_webhook_timestamp() -> None:
    from mccgw_client.webhooks import StaleWebhook, verify_webhook

    headers = {"X-Service-Timestamp": "\u00b2", "X-Service-Signature": "sha256=00"}
    with pytest.raises(StaleWebhook):
        verify_webhook("secret", headers, b"{}")


async def test_the_profile_patch_shows_the_email_only_with_the_email_scope(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    seen: dict[str, Any] = {}
    for scope in ("user:write", "user:write email"):
        token = bearer(await world.token(user.uid, scope))
        r = await client.patch("/v1/users/me/profile", json={"display_name": "N"}, headers=token)
        assert r.status_code == 200, r.text
        seen[scope] = r.json()["data"]["attributes"]["email"]
    assert seen == {"user:write": None, "user:write email": user.email}


async def test_readyz_probes_its_dependencies_once_for_a_flood(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/readyz is public and unlimited: 50 concurrent calls make one probe of the chain RPC
    (a metered provider), and a call a moment later is answered from it too."""
    probes = 0

    async def chain(state: Any) -> None:
        nonlocal probes
        probes += 1
        await asyncio.sleep(0.05)

    monkeypatch.setitem(health._CHECKS, "chain", chain)
    app.state.ready_probe = None
    answers = await asyncio.gather(*(client.get("/readyz") for _ in range(50)))
    assert len({r.status_code for r in answers}) == 1
    assert (await client.get("/readyz")).status_code == answers[0].status_code
    assert probes == 1
    monkeypatch.setattr(health, "READY_CACHE_SECONDS", 0.0)
    app.state.ready_probe = None
    await client.get("/readyz")
    assert probes == 2
