"""Health, readiness, CORS, OpenAPI and metrics of the API skeleton."""

from __future__ import annotations

import httpx

from api.app import create_app
from core.config import Settings
from tests.api.conftest import start_app


async def test_healthz(client: httpx.AsyncClient) -> None:
    resp = await client.get("/healthz")
    assert resp.status_code == 200
    assert resp.json() == {"status": "ok"}


async def test_readyz_with_every_dependency_up(client: httpx.AsyncClient) -> None:
    resp = await client.get("/readyz")
    assert resp.status_code == 200, resp.text
    assert resp.json()["checks"] == {
        "database": "ok",
        "redis": "ok",
        "temporal": "ok",
        "chain": "ok",
    }


async def test_readyz_names_what_is_down(app_settings: Settings) -> None:
    from core.embedded import free_port

    broken = app_settings.model_copy(
        update={
            "redis_url": f"redis://127.0.0.1:{free_port()}/0",
            "solana_rpc_url": f"http://127.0.0.1:{free_port()}",
        }
    )
    async for client in start_app(create_app(broken)):
        resp = await client.get("/readyz")
        assert resp.status_code == 503
        assert resp.headers["content-type"].startswith("application/problem+json")
        assert resp.headers["retry-after"]
        body = resp.json()
        assert body["checks"] == {
            "database": "ok",
            "redis": "down",
            "temporal": "ok",
            "chain": "down",
        }
        assert "chain" in body["detail"] and "redis" in body["detail"]


async def test_cors_allows_only_listed_origins(client: httpx.AsyncClient) -> None:
    preflight = {"Access-Control-Request-Method": "GET"}
    ok = await client.options("/healthz", headers={"Origin": "http://localhost:3000", **preflight})
    assert ok.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert ok.headers.get("x-request-id")
    denied = await client.options(
        "/healthz", headers={"Origin": "https://evil.example", **preflight}
    )
    assert "access-control-allow-origin" not in denied.headers


async def test_openapi_document_is_3_1_and_documents_routes(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    assert doc["openapi"].startswith("3.1")
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            # The route's docstring, not FastAPI's title-cased function name ("Lock Funds").
            summary = op.get("summary") or ""
            assert summary and not summary.istitle(), f"{method.upper()} {path}: {summary!r}"
    assert "/v1/projects/{project_id}/status" in doc["paths"]
    docs = await client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


async def test_metrics_count_requests(client: httpx.AsyncClient) -> None:
    await client.get("/healthz")
    text = (await client.get("/metrics")).text
    assert 'mccgw_http_requests_total{method="GET",route="/healthz",status="200"}' in text
    assert "mccgw_http_request_duration_seconds_bucket" in text
