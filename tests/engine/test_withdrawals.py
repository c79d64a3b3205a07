"""Withdrawals end to end on the real services: to a fresh wallet (its associated account made
by the gateway), through a project's app with its events, exactly once; the scope and the
consent they need; what a user and a project see."""

from __future__ import annotations

import uuid

import httpx
from sqlalchemy import func, select

from activities.deps import WorkerDeps
from db.models.chain import ChainTransaction
from db.models.events import Event
from db.models.ledger import Hold
from ledger.service import Ledger
from tests.engine.withdrawing import UNIT, holder
from tests.factories import CLIENT_SCOPES, World

# A project's app that may ask users for funds:withdraw.
APP_SCOPES = [*CLIENT_SCOPES, "funds:withdraw"]


async def books(deps: WorkerDeps, uid: str) -> tuple[int, int, int]:
    async with deps.sessions() as s:
        b = await Ledger(s).balances(uid, "MCC")
    return b.balance, b.held, b.pending_out


async def test_a_withdrawal_reaches_a_fresh_wallet_once(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient
) -> None:
    user = await holder(world, deps, client, 50 * UNIT)
    destination = deps.gateway.wallet_token_account(user.owner, "MCC")
    assert await deps.gateway.account(destination, "confirmed") is None  # no account yet

    key = uuid.uuid4().hex
    r = await user.withdraw("20", key=key)
    assert r.status_code == 202, r.text
    data = r.json()["data"]
    assert data["type"] == "withdrawal"
    shown = data["attributes"]
    assert shown["status"] == "pending" and shown["amount"] == "20"
    assert shown["wallet_address"] == str(user.owner)
    assert shown["destination"] == str(destination)
    assert shown["waiting_for"] == [] and shown["approvals_required"] == 0
    assert await books(deps, user.uid) == (50 * UNIT, 20 * UNIT, 0)  # held before the answer

    final = await user.until(data["id"])
    assert final["status"] == "completed", final
    assert [h["status"] for h in final["history"]] == ["pending", "pending_onchain", "completed"]
    assert final["tx_signature"] and final["block_height"] is not None
    # The wallet's associated account was created and holds the amount; custody and ledger agree.
    assert await deps.gateway.token_balance(destination, "finalized") == 20 * UNIT
    assert await deps.gateway.custody_balance(user.uid, "MCC", "finalized") == 30 * UNIT
    assert await books(deps, user.uid) == (30 * UNIT, 0, 0)
    async with deps.sessions() as s:
        hold = await s.get(Hold, data["id"])
        writes = await s.scalar(
            select(func.count()).where(ChainTransaction.op_key == f"withdrawal:{data['id']}")
        )
    assert hold is not None and hold.status == "posted"
    assert writes == 1

    # The same key again: the first answer replayed, nothing written twice.
    again = await user.withdraw("20", key=key)
    assert again.status_code == 202 and again.json()["data"]["id"] == data["id"]
    assert again.headers.get("idempotent-replayed") == "true"
    listed = await client.get("/v1/withdrawals", headers=user.headers)
    assert listed.status_code == 200
    assert [w["id"] for w in listed.json()["data"]] == [data["id"]]
    assert await books(deps, user.uid) == (30 * UNIT, 0, 0)


async def test_through_a_project_app_with_its_events(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient
) -> None:
    """A project's app the user consented to with funds:withdraw: the withdrawal is the
    project's (its events go there), and that app sees only what it started."""
    user = await holder(world, deps, client, 10 * UNIT)
    project = await world.project()
    await world.consent(user.uid, project.project_id, ["profile", "funds:withdraw"])
    client_id, _ = await world.oauth_client(project.project_id, allowed_scopes=APP_SCOPES)
    user.token = await world.token(user.uid, "funds:withdraw", client_id)
    r = await user.withdraw("3")
    assert r.status_code == 202, r.text
    withdrawal_id = r.json()["data"]["id"]
    assert r.json()["data"]["attributes"]["project_id"] == project.project_id
    final = await user.until(withdrawal_id)
    assert final["status"] == "completed", final
    async with deps.sessions() as s:
        events = list(
            await s.scalars(
                select(Event)
                .where(Event.data["withdrawal_id"].astext == withdrawal_id)
                .order_by(Event.created_at)
            )
        )
    assert [(e.type, e.project_id) for e in events] == [
        ("withdrawal.requested", project.project_id),
        ("withdrawal.completed", project.project_id),
    ]
    assert events[1].data["tx_signature"] == final["tx_signature"]
    assert events[1].data["amount"] == "3"

    # A withdrawal the user made with the gateway's own client is not this app's to see.
    own = await holder(world, deps, client, 0)
    own.uid, own.token = user.uid, await world.token(user.uid, "funds:withdraw")
    mine = await own.withdraw("2")
    assert mine.status_code == 202, mine.text
    seen = await client.get("/v1/withdrawals", headers=user.headers)
    assert [w["id"] for w in seen.json()["data"]] == [withdrawal_id]
    hidden = await client.get(f"/v1/withdrawals/{mine.json()['data']['id']}", headers=user.headers)
    assert hidden.status_code == 404
    everything = await client.get("/v1/withdrawals", headers=own.headers)
    assert len(everything.json()["data"]) == 2
    await own.until(mine.json()["data"]["id"])


async def test_funds_withdraw_is_needed(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient
) -> None:
    user = await holder(world, deps, client, 5 * UNIT, scope="openid profile mcc:read")
    r = await user.withdraw("2")
    assert r.status_code == 403, r.text
    assert r.json()["type"].endswith("/insufficient-scope")
    assert r.json()["required_scope"] == "funds:withdraw"
    # A project's app whose token says funds:withdraw but whose consent does not hold it.
    project = await world.project()
    await world.consent(user.uid, project.project_id, ["profile", "funds:manage"])
    client_id, _ = await world.oauth_client(project.project_id, allowed_scopes=APP_SCOPES)
    user.token = await world.token(user.uid, "funds:withdraw", client_id)
    r = await user.withdraw("2")
    assert r.status_code == 403, r.text
    assert r.json()["type"].endswith("/user-not-authorized-for-project")
    # Project credentials alone never reach a user's withdrawals.
    creds = {"X-Project-ID": str(project.project_id), "X-API-Key": project.secret}
    r = await client.post("/v1/withdrawals", json={"currency": "MCC", "amount": "2"}, headers=creds)
    assert r.status_code == 401, r.text
    assert await books(deps, user.uid) == (5 * UNIT, 0, 0)


async def test_a_withdrawal_needs_a_wallet_and_the_funds(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient
) -> None:
    user = await holder(world, deps, client, 5 * UNIT)
    r = await user.withdraw("6")
    assert r.status_code == 422 and r.json()["type"].endswith("/insufficient-funds"), r.text
    r = await user.withdraw("1.0000000001")
    assert r.status_code == 422 and r.json()["type"].endswith("/invalid-amount"), r.text
    r = await user.withdraw("2", currency="USD")
    assert r.status_code == 422, r.text
    walletless = await world.user()
    user.token = await world.token(walletless.uid, "funds:withdraw")
    r = await user.withdraw("2")
    assert r.status_code == 422 and r.json()["type"].endswith("/wallet-address-required"), r.text
    async with deps.sessions() as s:
        held = await s.scalar(select(func.count()).where(Hold.user_uid == walletless.uid))
    assert held == 0
