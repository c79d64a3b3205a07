"""Issue 38 (security review 2026-11-28), the authorization half: tokens bound to their
audience (H1, L6), budgets no one else can spend (M1, M2), sign-in throttling that never shuts
out a shared address (L5), no 500 from a non-ASCII digit (L1), the e-mail rule on the profile
PATCH, and a /readyz that a flood cannot fan out onto the chain RPC. Each test fails on the
code before the issue (the report says with what)."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from access.login import SOURCE_FAILURES, Verdict
from api.routes import health
from tests.access.conftest import BASE
from tests.factories import PASSWORD, REDIRECT, World
from tests.security.conftest import bearer, slug
from tests.security.test_id_tokens import _tokens


def _from(app: FastAPI, address: str) -> httpx.AsyncClient:
    """A client whose requests come from ``address`` (a source with budgets of its own)."""
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url=BASE)


# ------------------------------------------------------------------ H1, L6: audiences


async def test_h1_another_projects_token_never_rolls_the_owners_secret(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    """The owner of project A signs in to project B's app with `openid`: B's ID token and
    access token roll nothing, list nothing and set nothing of A's; A's own key does not set
    A's redirect URIs either. The owner's own (first-party) sign-in does all of it."""
    owner = await world.user()
    a = await world.project(owner_uid=owner.uid)
    a_key = {"X-Project-ID": str(a.project_id), "X-API-Key": a.secret}
    _, held_by_b = await _tokens(app, world, "openid", owner)
    roll = f"/v1/projects/{a.project_id}/api-secret/roll"
    body = {"expire_previous_in_seconds": 0}
    for kind in ("id_token", "access_token"):
        b = bearer(held_by_b[kind])
        r = await client.post(roll, json=body, headers=b)
        assert r.status_code == 403 and slug(r) == "first-party-required", (kind, r.text)
        r = await client.get("/v1/projects/applications", headers=b)
        assert r.status_code == 403, (kind, r.text)
        r = await client.put(
            f"/v1/projects/{a.project_id}/oauth-client",
            json={"redirect_uris": ["https://attacker.example/cb"], "idempotency_key": kind},
            headers=b,
        )
        assert r.status_code == 403, (kind, r.text)
    # A's key still works: nothing was rolled.
    assert (await client.get("/v1/webhooks", headers=a_key)).status_code == 200
    # The project's own key is no owner either: its redirect URIs are the owner's to set.
    r = await client.put(
        f"/v1/projects/{a.project_id}/oauth-client",
        json={"redirect_uris": [REDIRECT], "idempotency_key": "with-the-key"},
        headers=a_key,
    )
    assert r.status_code == 401, r.text

    own = bearer(await world.token(owner.uid, "openid"))
    r = await client.put(
        f"/v1/projects/{a.project_id}/oauth-client",
        json={"redirect_uris": [REDIRECT], "idempotency_key": "owner"},
        headers=own,
    )
    assert r.status_code == 200 and r.json()["data"]["attributes"]["redirect_uris"] == [REDIRECT]
    r = await client.post(roll, json=body, headers=own)
    assert r.status_code == 200, r.text
    secret = r.json()["data"]["attributes"]["api_secret"]
    rolled = {"X-Project-ID": str(a.project_id), "X-API-Key": secret}
    assert (await client.get("/v1/webhooks", headers=rolled)).status_code == 200
    # Another person's first-party sign-in is a developer, but not this project's owner.
    stranger = bearer(await world.token((await world.user()).uid, "openid"))
    r = await client.post(roll, json=body, headers=stranger)
    assert r.status_code == 403 and slug(r) == "forbidden", r.text


async def test_l6_legacy_routes_take_an_id_token_only_for_what_its_client_was_granted(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    """A project that got only `openid` reads nothing on the legacy routes (before: the
    balance, mining history, team and profile of any client's ID token); one the user granted
    the scope reads it; the gateway's own sign-in reads the user's own."""
    user = await world.user()
    _, openid_only = await _tokens(app, world, "openid", user)
    for path in ("/mcc/balance", "/mcc/mining/history", "/organization/my-team", "/users/profile"):
        r = await client.get(path, headers=bearer(openid_only["id_token"]))
        assert r.status_code == 403 and slug(r) == "insufficient-scope", (path, r.text)
    # Past the audience rule (this stack has no chain: the history answers 503 then).
    _, granted = await _tokens(app, world, "openid profile mining:read", user)
    r = await client.get("/users/profile", headers=bearer(granted["id_token"]))
    assert r.status_code == 200, r.text
    r = await client.get("/mcc/mining/history", headers=bearer(granted["id_token"]))
    assert r.status_code not in (401, 403), r.text
    _, own = await _tokens(app, world, "openid", user, first_party=True)
    for path in ("/mcc/mining/history", "/users/profile"):
        r = await client.get(path, headers=bearer(own["id_token"]))
        assert r.status_code not in (401, 403), (path, r.text)
    # A refused ID token still gets the legacy 401 body when it is no token of ours.
    r = await client.get("/mcc/mining/history", headers=bearer("not.a.token"))
    assert r.status_code == 401 and r.json()["error"] == "unauthorized"


async def test_sign_in_tokens_carry_when_the_person_signed_in(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    """Room for issue 44 (fresh sign-in for sensitive actions): the access token of a code
    exchange carries `auth_time` and `amr` (the ID token carried `auth_time` already)."""
    from joserfc import jwt

    _, issued = await _tokens(app, world, "openid", first_party=True)
    for kind in ("access_token", "id_token"):
        claims = jwt.decode(issued[kind], app.state.auth_server.keys.signing_keyset()).claims
        assert isinstance(claims["auth_time"], int) and claims["amr"] == ["pwd"], (kind, claims)
    assert claims["first_party"] is True and claims["project_id"] == ""


# ------------------------------------------------------------------ M1, M2: budgets


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
    secret, _ = await world.totp(admin.uid)
    async with _from(app, "192.0.2.78") as web:
        done = await sign_in(web, admin.username, secret)
    assert done.status_code == 303, done.text
    assert await limiter.count("ip:127.0.0.1") == 0


async def test_m2_a_project_cannot_spend_the_users_budget_elsewhere(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    """A project's token spends the user's budget at that project only: after it is spent,
    the user's own sign-in still lists and withdraws authorizations, and another project's
    token still works. A token refused for its scope spends its source's budget, not the
    user's (counted after the scope check)."""
    user = await world.user()
    b, other = await world.project(), await world.project()
    b_client, _ = await world.oauth_client(b.project_id)
    other_client, _ = await world.oauth_client(other.project_id)
    b_token = bearer(await world.token(user.uid, "user:read", client_id=b_client))
    async with _from(app, "198.18.0.1") as b_app:
        codes = [(await b_app.get("/v1/users/me", headers=b_token)).status_code for _ in range(101)]
    assert codes[:100] == [200] * 100 and codes[100] == 429

    own = bearer(await world.token(user.uid, "user:read user:write"))
    async with _from(app, "198.18.0.2") as person:
        listed = await person.get("/v1/users/me/authorizations", headers=own)
        assert listed.status_code == 200, listed.text
        gone = await person.request(
            "DELETE",
            "/v1/users/me/authorizations/999999999",
            headers={**own, "Idempotency-Key": uuid.uuid4().hex},
        )
        assert gone.status_code == 404, gone.text
        elsewhere = bearer(await world.token(user.uid, "user:read", client_id=other_client))
        assert (await person.get("/v1/users/me", headers=elsewhere)).status_code == 200

    openid_only = bearer(await world.token(user.uid, "openid", client_id=other_client))
    async with _from(app, "198.18.0.3") as scopeless:
        for _ in range(5):
            r = await scopeless.get("/v1/users/me", headers=openid_only)
            assert r.status_code == 403 and slug(r) == "insufficient-scope"
    limiter = app.state.rate_limiter
    assert await limiter.count(f"u:{user.uid}:{other_client}") == 1  # the one call above
    assert await limiter.count("ip:198.18.0.3") == 5


# ------------------------------------------------------------------ L5: shared addresses


async def test_l5_failures_behind_a_shared_address_do_not_lock_the_others_out(
    app: FastAPI, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 failed sign-ins on random accounts from one source (an office NAT): a colleague's
    right password from there still gets in (before: 429 for 15 minutes), held a little like
    every attempt from that busy source on an account it never signed in to."""
    held: list[float] = []

    async def record(verdict: Verdict) -> None:
        held.append(verdict.hold)

    monkeypatch.setattr("authserver.throttle.hold", record)
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


# ------------------------------------------------------------------ L1, e-mail, /readyz


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
