"""``api.routing.LightRoute``: a route that solves its caller's declaration as one dependency
(the credentials read by the declaration, not by one sub-dependency per security scheme)
answers exactly as the declared route does, and its OpenAPI operation is the same."""

from __future__ import annotations

import re
from typing import Any

import fastapi.dependencies.utils
import fastapi.routing
import httpx
import pytest
from fastapi import FastAPI
from fastapi.security.base import SecurityBase
from joserfc.jwk import RSAKey

from access.revocation import REVOKED_JTI
from tests.access.test_bearer import claims, sign
from tests.access.test_project_auth import signed
from tests.factories import World, clear_rate_windows


def _answer(r: httpx.Response) -> tuple[int, str, dict[str, str]]:
    body = r.text.replace("light-players", "players").replace("direct-players", "players")
    headers = {
        k: v
        for k, v in r.headers.items()
        if k not in ("x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset", "content-length")
    }
    return r.status_code, re.sub(r'"request_id":"[^"]*"', "", body), headers


# (declared, light): a read FastAPI answers for the endpoint, and one that answers its own
# Response, which a LightRoute runs without FastAPI's dependency solving (api.routing._direct).
PAIRS = (
    ("/v1/_probe/players", "/v1/_probe/light-players"),
    ("/v1/_probe/players-answer", "/v1/_probe/direct-players-answer"),
)


@pytest.mark.parametrize(("declared", "lighter"), PAIRS)
async def test_a_light_route_answers_as_the_declared_one(
    client: httpx.AsyncClient, world: World, declared: str, lighter: str
) -> None:
    user = await world.user()
    creds = await world.project()
    limited = await world.project(allowed_scopes=["funds:manage"])
    bearers: dict[str, dict[str, str]] = {
        "none": {},
        "garbage": {"Authorization": "Bearer not.a.jwt"},
        "basic": {"Authorization": "Basic abc"},
        "scope": {"Authorization": f"Bearer {await world.token(user.uid, 'mining:read')}"},
        "no scope": {"Authorization": f"Bearer {await world.token(user.uid, 'user:read')}"},
        "bad key": {"X-Project-ID": str(creds.project_id), "X-API-Key": "nope"},
        "key": {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.api_key},
        "empty project id": {"X-Project-ID": "", "X-API-Key": creds.api_key},
    }
    good = sign(world.app, claims(user.uid, scope="mining:read"))
    head, payload, signature = good.split(".")
    for name, token in {
        "expired": sign(world.app, claims(user.uid, scope="mining:read", exp=1)),
        "audience": sign(world.app, claims(user.uid, scope="mining:read", aud="https://x.example")),
        "tampered": f"{head}.{payload[:-4]}AAAA.{signature}",
        "foreign key": sign(world.app, claims(user.uid), RSAKey.generate_key(2048)),
        "revoked": sign(world.app, claims(user.uid, scope="mining:read", jti="light-revoked")),
    }.items():
        bearers[name] = {"Authorization": f"Bearer {token}"}
    await world.app.state.redis.set(REVOKED_JTI + "light-revoked", "1", ex=60)
    for name, headers in bearers.items():
        plain = await client.get(declared, headers=headers)
        light = await client.get(lighter, headers=headers)
        assert _answer(light) == _answer(plain), name
    for project, status in ((creds, 200), (limited, 403)):
        answers = []
        for path in (declared, lighter):
            r = await client.get(path, headers=signed(project, "GET", path))
            assert r.status_code == status, r.text
            answers.append(_answer(r))
        assert answers[0] == answers[1]
    await clear_rate_windows(world.app.state.redis)


@pytest.mark.parametrize(("declared", "lighter"), PAIRS)
def test_its_openapi_operation_is_the_declared_ones(
    app: FastAPI, declared: str, lighter: str
) -> None:
    paths = app.openapi()["paths"]
    plain, light = paths[declared]["get"], paths[lighter]["get"]
    assert light["security"] == plain["security"]
    assert {"OAuth2": ["mining:read"]} in light["security"]
    assert light["x-callers"] == plain["x-callers"]


@pytest.fixture
def solved(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The calls of the dependencies FastAPI solves, one per node of the tree."""
    calls: list[Any] = []
    original = fastapi.dependencies.utils.solve_dependencies

    async def counting(**kwargs: Any) -> Any:
        calls.append(kwargs["dependant"].call)
        return await original(**kwargs)

    monkeypatch.setattr(fastapi.dependencies.utils, "solve_dependencies", counting)
    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    return calls


async def test_the_reads_solve_their_caller_without_fastapi(
    client: httpx.AsyncClient, world: World, solved: list[Any]
) -> None:
    user = await world.user()
    bearer = {"Authorization": f"Bearer {await world.token(user.uid, 'org:read')}"}
    reads = ("/v1/tech-tree/bonus", "/v1/mcc/balance", "/v1/mcd/balance")
    for path in (*reads, "/v1/_probe/direct-players-answer"):
        r = await client.get(path, headers=bearer)
        assert r.status_code in (200, 403), r.text
        # The caller's check, then the endpoint: nothing solved by FastAPI. Was 2 (the route
        # and its caller) after pass four, 5 before it: the app's limit_unauthenticated, the
        # OAuth2 scheme under the caller, the Redis client.
        assert solved == [], (path, solved)
    r = await client.get("/v1/_probe/light-players", headers=bearer)  # answers a dict: solved
    assert r.status_code == 403
    assert len(solved) == 2, solved
    assert not any(isinstance(call, SecurityBase) for call in solved)
    solved.clear()
    r = await client.get("/v1/_probe/players", headers=bearer)  # a plain route: as before
    assert r.status_code == 403
    assert any(isinstance(call, SecurityBase) for call in solved)
    await clear_rate_windows(world.app.state.redis)
