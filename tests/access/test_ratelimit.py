"""Sliding-window rate limits: the boundary, headers everywhere, a window shared by processes."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from core.config import Settings
from tests.access.conftest import BASE, build_app
from tests.factories import World

RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")


async def test_boundary_and_429(client: httpx.AsyncClient, world: World) -> None:
    creds = await world.project(rate_limit_tier="free")
    headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    for i in range(100):
        r = await client.get("/v1/_probe/funds", headers=headers)
        assert r.status_code == 200, (i, r.text)
        assert r.headers["x-ratelimit-limit"] == "100"
        assert r.headers["x-ratelimit-remaining"] == str(99 - i)
    limited = await client.get("/v1/_probe/funds", headers=headers)
    assert limited.status_code == 429
    body = limited.json()
    assert body["type"].endswith("/errors/rate-limit-exceeded")
    assert 1 <= body["retry_after"] <= 60
    assert limited.headers["retry-after"] == str(body["retry_after"])
    assert limited.headers["x-ratelimit-remaining"] == "0"
    assert "x-request-id" in limited.headers


async def test_headers_on_every_response(client: httpx.AsyncClient) -> None:
    responses = [
        await client.get("/v1/_probe/bare"),  # anonymous success
        await client.get("/v1/nowhere"),  # 404
        await client.get("/v1/users/me"),  # 401
        await client.get("/v1/users/me", headers={"Authorization": "Bearer x.y.z"}),  # 401
        await client.post(
            "/v1/users/u/attributes", content=b"x", headers={"Content-Type": "text/plain"}
        ),  # 415
    ]
    for r in responses:
        assert all(h in r.headers for h in RATE_HEADERS), (r.status_code, dict(r.headers))
    assert "x-ratelimit-limit" not in (await client.get("/healthz")).headers


async def test_anonymous_limit_by_ip(client: httpx.AsyncClient) -> None:
    for _ in range(100):
        assert (await client.get("/v1/_probe/bare")).status_code == 200
    r = await client.get("/v1/_probe/bare")
    assert r.status_code == 429 and r.json()["retry_after"] >= 1
    assert "retry-after" in r.headers and "x-request-id" in r.headers


async def test_two_processes_share_one_window(
    app: FastAPI, settings: Settings, world: World
) -> None:
    user = await world.user()
    token = await world.token(user.uid, "user:read")
    headers = {"Authorization": f"Bearer {token}"}
    second = build_app(settings)
    async with second.router.lifespan_context(second):
        clients = [
            httpx.AsyncClient(transport=httpx.ASGITransport(app=a), base_url=BASE)
            for a in (app, second)
        ]
        statuses = []
        for i in range(101):
            r = await clients[i % 2].get("/v1/users/me", headers=headers)
            statuses.append(r.status_code)
        for c in clients:
            await c.aclose()
    assert statuses[:100] == [200] * 100
    assert statuses[100] == 429


async def test_redis_down_is_503_not_500(settings: Settings, world: World) -> None:
    # Port 1 on loopback: nothing listens, every Redis call fails at once.
    down = build_app(settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"}))
    creds = await world.project()
    async with (
        down.router.lifespan_context(down),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=down), base_url=BASE) as c,
    ):
        anonymous = await c.get("/v1/_probe/bare")
        signed_in = await c.get(
            "/v1/_probe/funds",
            headers={"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret},
        )
    for r in (anonymous, signed_in):
        assert r.status_code == 503, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert r.headers["retry-after"] == "1"
        assert r.json()["type"].endswith("/errors/service-unavailable")
        assert "x-request-id" in r.headers
