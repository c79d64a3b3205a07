"""One getProgramAccounts per program per refresh however many requests arrive; 503 when
the chain is unreachable."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from api.app import create_app
from core.config import Settings
from core.embedded import free_port
from tests.views.conftest import start_app
from tests.views.world import ALICE, CAROL


async def test_a_burst_costs_one_program_scan_per_refresh(views_settings: Settings) -> None:
    app = create_app(views_settings.model_copy(update={"views_refresh_seconds": 1.0}))
    async for client in start_app(app):
        calls = app.state.views.reader.calls
        paths = [
            "/v1/auction-solana/active",
            f"/v1/auction-solana/bids/{CAROL}",
            "/v1/auction-solana/auction/1/bids",
            "/v1/fragment/vaults",
            f"/v1/lending/loans/{ALICE}",
            "/v1/lending/pool",
        ] * 10
        answers = await asyncio.gather(*(client.get(p) for p in paths))
        assert [r.status_code for r in answers] == [200] * len(paths)
        # auction, fragment, lending: one scan each for 60 requests
        assert calls["getProgramAccounts"] == 3
        await asyncio.sleep(1.05)
        again = await asyncio.gather(*(client.get("/v1/auction-solana/active") for _ in range(20)))
        assert {r.status_code for r in again} == {200}
        await asyncio.sleep(0.2)  # the refresh runs in the background (stale-while-revalidate)
        assert calls["getProgramAccounts"] == 4  # the refresh after the interval: one more


async def test_unreachable_chain_is_a_503_problem(views_settings: Settings) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    app: FastAPI = create_app(views_settings.model_copy(update={"solana_rpc_url": dead}))
    async for client in start_app(app):
        for path in (
            "/v1/territory/collection",
            f"/v1/lending/loans/{ALICE}",
            "/v1/auction-solana/active",
        ):
            r = await client.get(path)
            assert r.status_code == 503, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
            assert r.json()["type"].endswith("/service-unavailable")
            assert r.headers["Retry-After"] == "1"
        r = await client.post(
            "/v1/lending/calculate-interest", json={"principal": "1", "duration_seconds": 1}
        )
        assert r.status_code == 503


async def test_views_are_typed_in_openapi(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    paths = [
        p
        for p in doc["paths"]
        if p.startswith(("/v1/territory", "/v1/auction-solana", "/v1/fragment", "/v1/lending"))
    ]
    assert len(paths) == 23
    ok = doc["paths"]["/v1/lending/loan/{wallet}/{loan_id}"]["get"]["responses"]
    assert {"200", "404", "422", "503"} <= set(ok)
    schema = ok["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "LoanAttributes" in schema
    unit = doc["paths"]["/v1/territory/unit/{unit_id}/nft"]["get"]["parameters"]
    # `station-1` (the organizations' id) names the type; a bare number needs `type`.
    assert any(p["name"] == "type" and not p["required"] for p in unit)
    path_id = next(p for p in unit if p["name"] == "unit_id")
    assert "station" in path_id["schema"]["pattern"]
