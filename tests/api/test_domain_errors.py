"""One error path (issue 12, item 3): every service's refusal is a DomainError, rendered by the
one handler with its slug, status, extra members and headers; ledger invariants stay a 500."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.errors import answered_status, install_error_handlers
from chain.errors import ChainRateLimited, ChainTimeout, ChainUnavailable
from core.config import Settings
from core.errors import DomainError
from db.models import User
from db.models.access import AuditLog
from db.models.ledger import Hold
from engine.errors import Rejected, invalid_state
from ledger.service import InsufficientFunds, LedgerError
from organizations.errors import OrgRejected
from organizations.errors import not_found as org_not_found
from tests.api.conftest import start_app
from tests.factories import World
from views.errors import invalid

WALLET_ERRORS = {"errors": [{"field": "wallet", "message": "not a base58 address"}]}
CASES: dict[str, Exception] = {
    "engine": Rejected("over the limit", slug="amount-limit-exceeded", limit="10"),
    "engine-state": invalid_state("already settled", transfer_status="completed"),
    "org": OrgRejected("the station is full", slug="station-full", status=409),
    "org-missing": org_not_found("Unit station-9"),
    "view": invalid("wallet", "not a base58 address"),
    "ledger": InsufficientFunds("alice", "MCC", 5, 2),
    "invariant": LedgerError("amount must be positive, got -1"),
}


def _raising(exc: Exception) -> Callable[[], Awaitable[None]]:
    async def fail() -> None:
        raise exc

    return fail


def _raising_app(cases: dict[str, Exception]) -> httpx.AsyncClient:
    """A client of an app with the one error path, whose route /{name} raises ``cases[name]``."""
    app = FastAPI()
    app.state.settings = Settings(environment="test")
    install_error_handlers(app)
    for name, exc in cases.items():
        app.add_api_route(f"/{name}", _raising(exc))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://test")


@pytest.fixture
async def client() -> httpx.AsyncClient:
    return _raising_app(CASES)


@pytest.mark.parametrize(
    ("name", "status", "slug", "extra"),
    [
        ("engine", 422, "amount-limit-exceeded", {"limit": "10"}),
        ("engine-state", 409, "invalid-state", {"transfer_status": "completed"}),
        ("org", 409, "station-full", {}),
        ("org-missing", 404, "not-found", {}),
        ("view", 422, "validation-error", WALLET_ERRORS),
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


CHAIN_DOWN: dict[str, Exception] = {
    "refused": ChainUnavailable("getProgramAccounts: ConnectError: http://10.0.0.7:8899 refused"),
    "limited": ChainRateLimited("getBalance: HTTP 429 from the RPC provider", 7.2),
    "limited-bare": ChainRateLimited("getBalance: HTTP 429 from the RPC provider", None),
    "timeout": ChainTimeout("'transfer:1' not final after 20s"),
}


@pytest.fixture
async def chain_client() -> httpx.AsyncClient:
    return _raising_app(CHAIN_DOWN)


@pytest.mark.parametrize(
    ("name", "retry_after"),
    [("refused", "1"), ("limited", "8"), ("limited-bare", "1"), ("timeout", "1")],
)
async def test_a_chain_that_does_not_answer_is_one_503_whatever_route_met_it(
    chain_client: httpx.AsyncClient, name: str, retry_after: str
) -> None:
    """chain/rpc.py's ChainUnavailable (a view's read, a balance, a write's wait) is answered
    at one boundary: 503 ``service-unavailable``, when to come back (the provider's own
    Retry-After when it rate-limited us), and never the transport's text (hosts, ports)."""
    resp = await chain_client.get(f"/{name}")
    assert resp.status_code == 503
    assert resp.headers["content-type"] == "application/problem+json"
    assert resp.json()["type"].endswith("/errors/service-unavailable")
    assert resp.json()["detail"] == "The chain RPC is unavailable. Retry the request."
    assert resp.headers["retry-after"] == retry_after
    assert answered_status(CHAIN_DOWN[name]) == (503, "service-unavailable")


async def test_a_ledger_invariant_is_an_internal_error_without_detail(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/invariant")
    assert resp.status_code == 500
    assert resp.json()["type"].endswith("/errors/internal-error")
    assert "amount" not in resp.json()["detail"]


@pytest.fixture
def world(
    session_maker: async_sessionmaker[AsyncSession], settings: Settings, app: FastAPI
) -> World:
    return World(session_maker, settings, app)


async def _lock_one_mcc(
    app: FastAPI, world: World, client: httpx.AsyncClient
) -> tuple[httpx.Response, str, User]:
    """A new project and user who authorized it ask to lock 1 MCC: (the answer, its key, the
    user)."""
    await app.state.gateway.warm_up()  # amounts need the mints' decimals
    creds = await world.project()
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    key = secrets.token_hex(8)
    expires = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    body = {"user_uid": user.uid, "currency": "MCC", "amount": "1", "reason": "bid",
            "expires_at": expires, "idempotency_key": key}  # fmt: skip
    headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    return await client.post("/v1/funds/lock", json=body, headers=headers), key, user


async def test_an_engine_refusal_is_audited_failed_through_write_context(
    app: FastAPI, world: World
) -> None:
    """``write_context`` rolls back a refused write and audits it, now that the engine's
    ``Rejected`` reaches it as a DomainError (no route translation in between)."""
    async for client in start_app(app):
        r, key, user = await _lock_one_mcc(app, world, client)  # the user has no funds at all
        assert r.status_code == 422 and r.json()["type"].endswith("/insufficient-funds"), r.text
        assert r.json()["available_balance"] == "0"
    async with world.sessions() as s:
        rows = (await s.scalars(select(AuditLog).where(AuditLog.idempotency_key == key))).all()
        assert await s.scalar(select(Hold).where(Hold.user_uid == user.uid)) is None
    assert [(a.status, a.status_code) for a in rows] == [("failed", 422)]
    assert rows[0].response_body["type"] == "insufficient-funds"


async def test_a_write_that_loses_its_database_is_audited_with_the_503_it_answered(
    app: FastAPI, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit row of a failed write records what the client was told: a connection lost in
    the middle of the write is a 503 ("retry with the same key"), not an internal error."""

    async def lose_connection(session: AsyncSession, *_: object) -> None:
        await session.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))

    monkeypatch.setattr("api.routes.funds.require_user_authorized", lose_connection)
    async for client in start_app(app):
        r, key, user = await _lock_one_mcc(app, world, client)
        assert r.status_code == 503 and r.json()["type"].endswith("/service-unavailable"), r.text
    async with world.sessions() as s:
        rows = (await s.scalars(select(AuditLog).where(AuditLog.idempotency_key == key))).all()
        assert await s.scalar(select(Hold).where(Hold.user_uid == user.uid)) is None
    assert [(a.status, a.status_code) for a in rows] == [("failed", 503)]
    assert rows[0].response_body == {"type": "service-unavailable", "status": 503}
