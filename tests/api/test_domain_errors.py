"""One error path (issue 12, item 3): every service's refusal is a DomainError, rendered by the
one handler with its slug, status, extra members and headers; ledger invariants stay a 500."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import pytest
from fastapi import FastAPI

from api.errors import install_error_handlers
from core.config import Settings
from core.errors import DomainError
from engine.errors import Rejected, invalid_state
from ledger.service import InsufficientFunds, LedgerError
from organizations.errors import OrgRejected
from organizations.errors import not_found as org_not_found
from views.errors import ChainUnavailable, invalid

WALLET_ERRORS = {"errors": [{"field": "wallet", "message": "not a base58 address"}]}
CASES: dict[str, Exception] = {
    "engine": Rejected("over the limit", slug="amount-limit-exceeded", limit="10"),
    "engine-state": invalid_state("already settled", transfer_status="completed"),
    "org": OrgRejected("the station is full", slug="station-full", status=409),
    "org-missing": org_not_found("Unit station-9"),
    "view": invalid("wallet", "not a base58 address"),
    "view-down": ChainUnavailable("connection refused"),
    "ledger": InsufficientFunds("alice", "MCC", 5, 2),
    "invariant": LedgerError("amount must be positive, got -1"),
}


def _raising(exc: Exception) -> Callable[[], Awaitable[None]]:
    async def fail() -> None:
        raise exc

    return fail


@pytest.fixture
async def client() -> httpx.AsyncClient:
    app = FastAPI()
    app.state.settings = Settings(environment="test")
    install_error_handlers(app)
    for name, exc in CASES.items():
        app.add_api_route(f"/{name}", _raising(exc))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://test")


@pytest.mark.parametrize(
    ("name", "status", "slug", "extra"),
    [
        ("engine", 422, "amount-limit-exceeded", {"limit": "10"}),
        ("engine-state", 409, "invalid-state", {"transfer_status": "completed"}),
        ("org", 409, "station-full", {}),
        ("org-missing", 404, "not-found", {}),
        ("view", 422, "validation-error", WALLET_ERRORS),
        ("view-down", 503, "service-unavailable", {}),
        ("ledger", 422, "insufficient-funds", {}),
    ],
)
async def test_each_refusal_is_one_problem(
    client: httpx.AsyncClient, name: str, status: int, slug: str, extra: dict[str, object]
) -> None:
    assert all(isinstance(CASES[n], DomainError) for n in CASES if n != "invariant")
    resp = await client.get(f"/{name}")
    assert resp.status_code == status
    assert resp.headers["content-type"] == "application/problem+json"
    body = resp.json()
    assert body["type"].endswith(f"/errors/{slug}") and body["status"] == status
    assert body["detail"] == CASES[name].detail  # type: ignore[attr-defined]
    assert {k: body[k] for k in extra} == extra
    # A view's 503 says when to come back, as the removed per-class handler did.
    assert (resp.headers.get("retry-after") == "1") == (name == "view-down")


async def test_a_ledger_invariant_is_an_internal_error_without_detail(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/invariant")
    assert resp.status_code == 500
    assert resp.json()["type"].endswith("/errors/internal-error")
    assert "amount" not in resp.json()["detail"]
