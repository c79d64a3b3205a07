"""Token endpoints on the real app: success, scope refusal and bad input for each."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from solders.keypair import Keypair
from sqlalchemy import func, select, text

from activities.deps import WorkerDeps
from api.token_common import STATS_SECONDS
from db.models.access import AuditLog
from db.models.tokens import AdminPrice
from devchain.outside import OutsideWallet
from tests.factories import World
from tests.tokens.conftest import UNIT, bearer
from tokens import stats
from tokens.cache import Memo
from tokens.deposit_watch import DepositScanner
from tokens.deposits import register
from tokens.stats import LEDGER_QUERY


async def _funded(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet,
    currency: str, amounts: list[int],
) -> str:  # fmt: skip
    uid = (await world.user()).uid
    async with deps.sessions() as session:
        await register(session, deps.gateway, uid, currency)
        await session.commit()
    await scanner.scan()
    custody = deps.gateway.custody_address(uid, currency)
    for amount in amounts:
        await outsider.send_tokens(deps.gateway.keys.mint_for(currency), custody, amount, 9)
    await scanner.scan()
    return uid


async def test_balances_scopes_and_cache_eviction(
    client: httpx.AsyncClient, world: World, deps: WorkerDeps, scanner: DepositScanner,
    outsider: OutsideWallet, app: FastAPI,
) -> None:  # fmt: skip
    cache = app.state.token_cache
    for _ in range(100):  # it connects in the background at start-up
        if cache.listening:
            break
        await asyncio.sleep(0.05)
    assert cache.listening  # the LISTEN connection is up, so balances are cached
    uid = await _funded(world, deps, scanner, outsider, "MCD", [12 * UNIT])
    token = await world.token(uid, "mcd:read mcc:read")
    r = await client.get("/v1/mcd/balance", headers=bearer(token))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["data"]["type"] == "mcd_balance" and body["data"]["id"] == uid
    a = body["data"]["attributes"]
    assert (a["total_balance"], a["frozen_balance"], a["available_balance"]) == ("12", "0", "12")
    assert a["deposit_address"] == str(deps.gateway.custody_address(uid, "MCD"))
    assert a["deposit_owner"] == str(deps.gateway.keys.custody_authority.pubkey())
    assert body["meta"]["api_version"] == "v1"
    assert f"{uid}:MCD" in cache._entries  # served from the cache from now on

    # Cached now; a new deposit commits a ledger change, whose NOTIFY evicts the entry.
    await outsider.send_tokens(
        deps.gateway.keys.mint_for("MCD"), deps.gateway.custody_address(uid, "MCD"), UNIT, 9
    )
    await scanner.scan()
    for _ in range(50):
        r = await client.get("/v1/mcd/balance", headers=bearer(token))
        if r.json()["data"]["attributes"]["total_balance"] == "13":
            break
        await asyncio.sleep(0.02)
    assert r.json()["data"]["attributes"]["total_balance"] == "13"

    mcc = await client.get("/v1/mcc/balance", headers=bearer(token))
    assert mcc.status_code == 200
    assert mcc.json()["data"]["type"] == "mcc_balance"
    assert mcc.json()["data"]["attributes"]["locked_balance"] == "0"

    # A user with no ledger movement yet: zero, as of the reading (issue 42: never null).
    newcomer = (await world.user()).uid
    fresh = await world.token(newcomer, "mcd:read mcc:read")
    before = datetime.now(UTC)
    for path in ("/v1/mcd/balance", "/v1/mcc/balance"):
        zero = (await client.get(path, headers=bearer(fresh))).json()["data"]["attributes"]
        assert zero["total_balance"] == "0"
        read_at = datetime.fromisoformat(zero["updated_at"].replace("Z", "+00:00"))
        assert before - timedelta(seconds=1) <= read_at <= datetime.now(UTC)

    # Scope refusals and no token.
    only_mcc = await world.token(uid, "mcc:read")
    r = await client.get("/v1/mcd/balance", headers=bearer(only_mcc))
    assert r.status_code == 403 and r.json()["type"].endswith("/insufficient-scope")
    profile = await world.token(uid, "profile")
    r = await client.get("/v1/mcc/balance", headers=bearer(profile))
    assert r.status_code == 403
    assert (await client.get("/v1/mcc/balance")).status_code == 401

    # Legacy form: plain numbers, the legacy 401 body.
    legacy = await client.get("/mcc/balance", headers=bearer(token))
    assert legacy.status_code == 200
    assert legacy.json() == {
        "total_balance": 0, "locked_balance": 0, "available_balance": 0, "pending_rewards": 0,
    }  # fmt: skip
    r = await client.get("/mcc/balance", headers=bearer("nonsense"))
    assert r.status_code == 401 and r.json()["code"] == 401 and r.json()["error"] == "unauthorized"


async def test_transactions_paged_newest_first_own_only(
    client: httpx.AsyncClient, world: World, deps: WorkerDeps, scanner: DepositScanner,
    outsider: OutsideWallet,
) -> None:  # fmt: skip
    uid = await _funded(world, deps, scanner, outsider, "MCC", [1 * UNIT, 2 * UNIT, 3 * UNIT])
    other = await _funded(world, deps, scanner, outsider, "MCC", [5 * UNIT])
    token = await world.token(uid, "mcc:read")
    r = await client.get("/v1/mcc/transactions?per_page=2", headers=bearer(token))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["meta"] | {"request_id": None} == {
        "request_id": None, "api_version": "v1", "total": 3, "page": 1, "per_page": 2,
    }  # fmt: skip
    assert [i["attributes"]["amount"] for i in body["data"]] == ["3", "2"]
    r = await client.get("/v1/mcc/transactions?per_page=2&page=2", headers=bearer(token))
    assert [i["attributes"]["amount"] for i in r.json()["data"]] == ["1"]
    other_token = await world.token(other, "mcc:read")
    r = await client.get("/v1/mcc/transactions", headers=bearer(other_token))
    assert [i["attributes"]["amount"] for i in r.json()["data"]] == ["5"]
    # MCD transactions need mcd:read; bad paging is a 422 problem.
    r = await client.get("/v1/mcd/transactions", headers=bearer(token))
    assert r.status_code == 403
    r = await client.get("/v1/mcc/transactions?per_page=1000", headers=bearer(token))
    assert r.status_code == 422 and r.json()["type"].endswith("/validation-error")
    mcd_token = await world.token(uid, "mcd:read")
    r = await client.get("/v1/mcd/transactions", headers=bearer(mcd_token))
    assert r.status_code == 200 and r.json()["meta"]["total"] == 0


async def test_public_address_balance_and_stats(
    client: httpx.AsyncClient, deps: WorkerDeps, outsider: OutsideWallet
) -> None:
    r = await client.get(f"/v1/mcc/balance/{outsider.address}")
    assert r.status_code == 200, r.text
    a = r.json()["data"]["attributes"]
    on_chain = await deps.gateway.token_balance(
        outsider.token_account(deps.gateway.keys.mint_for("MCC")), "finalized"
    )
    assert a["total_balance"] == str(on_chain // UNIT) or a["total_balance"].startswith(
        str(on_chain // UNIT)
    )
    assert a["token_accounts"] == 1
    # A wallet nobody knows: the same shape, zero.
    stranger = str(Keypair().pubkey())
    r = await client.get(f"/v1/mcc/balance/{stranger}")
    assert r.status_code == 200 and r.json()["data"]["attributes"]["total_balance"] == "0"
    for bad in ("not-base58!!", "0OIl" * 11, "abc"):
        r = await client.get(f"/v1/mcc/balance/{bad}")
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["type"].endswith("/validation-error")

    for currency in ("mcc", "mcd"):
        r = await client.get(f"/v1/{currency}/stats")
        assert r.status_code == 200, r.text
        s = r.json()["data"]["attributes"]
        assert s["decimals"] == 9 and s["mint"] == str(deps.gateway.keys.mint_for(currency))
        assert int(s["supply"].split(".")[0]) >= 1_000_000
        assert s["holders"] >= 0 and s["updated_at"].endswith("Z")
    assert r.json()["data"]["type"] == "mcd_stats"
    mcc = (await client.get("/v1/mcc/stats")).json()["data"]["attributes"]
    assert mcc["price_source"] in ("market", "admin", "default") and mcc["price_usdc"]


async def test_price_read_and_admin_write(
    client: httpx.AsyncClient, world: World, deps: WorkerDeps
) -> None:
    r = await client.get("/v1/mcc/price")
    assert r.status_code == 200, r.text
    assert r.json()["data"]["type"] == "mcc_price"
    assert r.json()["data"]["attributes"]["source"] in ("admin", "default")

    async def admin_prices() -> int:
        async with deps.sessions() as session:
            return int(await session.scalar(select(func.count()).select_from(AdminPrice)) or 0)

    before = await admin_prices()
    user = await world.user()
    plain_token = await world.token(user.uid, "mcc:read")
    r = await client.post(
        "/v1/mcc/price", json={"price_usdc": "11", "idempotency_key": "p-1"},
        headers=bearer(plain_token),
    )  # fmt: skip
    assert r.status_code == 403 and r.json()["type"].endswith("/insufficient-scope")

    admin = await world.user(role="admin")
    token = await world.token(admin.uid, "openid")
    for bad in ("-1", "0", "1.1234567", "1e3", "100000", "abc", 5):
        r = await client.post(
            "/v1/mcc/price", json={"price_usdc": bad, "idempotency_key": f"bad-{bad}"},
            headers=bearer(token),
        )  # fmt: skip
        assert r.status_code == 422, (bad, r.text)
    assert await admin_prices() == before

    r = await client.post(
        "/v1/mcc/price", json={"price_usdc": "12.345678", "idempotency_key": "set-1"},
        headers=bearer(token),
    )  # fmt: skip
    assert r.status_code == 200, r.text
    a = r.json()["data"]["attributes"]
    assert (a["price_usdc"], a["source"]) == ("12.345678", "admin")
    assert await admin_prices() == before + 1
    async with deps.sessions() as session:
        audit = await session.scalar(
            select(AuditLog).where(AuditLog.operation == "mcc.price.set",
                                   AuditLog.user_uid == admin.uid)
        )  # fmt: skip
        assert audit is not None and audit.status == "success"
    # The GET sees it at once (the insert's NOTIFY evicted the cached view).
    for _ in range(50):
        got = (await client.get("/v1/mcc/price")).json()["data"]["attributes"]
        if got["price_usdc"] == "12.345678":
            break
        await asyncio.sleep(0.02)
    assert (got["price_usdc"], got["source"]) == ("12.345678", "admin")


async def test_token_stats_load_once_however_many_ask_and_read_an_index(
    client: httpx.AsyncClient, deps: WorkerDeps, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review 2026-11-28, L2: the statistics are public and kept 30 s per process. 50 requests
    arriving together on a cold cache run ONE load (one getTokenSupply, one 30-day aggregate),
    and that aggregate over ledger_entries reads its own index, not the whole table."""
    loads: list[str] = []
    real = stats.load

    async def counted(*args: Any) -> Any:
        loads.append(args[2])
        return await real(*args)

    monkeypatch.setattr(stats, "load", counted)
    app.state.token_stats = Memo(STATS_SECONDS)  # cold: as at each expiry
    answers = await asyncio.gather(*(client.get("/v1/mcd/stats") for _ in range(50)))
    assert [a.status_code for a in answers] == [200] * 50
    assert len({a.json()["data"]["attributes"]["updated_at"] for a in answers}) == 1
    assert loads == ["MCD"]

    async with deps.sessions() as session:
        await session.execute(text("SET LOCAL enable_seqscan = off"))  # the table is small here
        plan = (await session.execute(text(f"EXPLAIN {LEDGER_QUERY.text}"), {"c": "MCD"})).scalars()
        lines = list(plan)
    assert any("ix_ledger_entries_credits" in line for line in lines), lines
