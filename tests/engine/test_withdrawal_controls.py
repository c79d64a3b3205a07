"""Each control a withdrawal meets, against the real services: the minimum, the maximum and the
user's 24-hour limit; the deployment's hourly outflow breaker and its reset; the cooling-off
after a wallet change (which needs a fresh first-party sign-in); one and two administrators'
approvals and a refusal, each audited with the admin's uid and reason; a cancel before signing,
by the user and by an operator; the deadline of a wait."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from solders.keypair import Keypair
from sqlalchemy import select, update

from activities.deps import WorkerDeps
from db.models.access import AuditLog
from db.models.withdrawals import WithdrawalBreaker
from ledger.service import Ledger
from tests.engine.withdrawing import UNIT, Holder, act, admin, holder
from tests.factories import CLIENT_SCOPES, World

Controls = Callable[..., None]


@pytest.fixture
def controls(app: FastAPI) -> Iterator[Controls]:
    """Change withdrawal settings for one test (``minimum="2"``, ``cooling_off_seconds=3``);
    the app's own again after it."""
    original = app.state.settings

    def change(**values: Any) -> None:
        app.state.settings = original.model_copy(
            update={f"withdrawal_{name}": value for name, value in values.items()}
        )

    yield change
    app.state.settings = original


async def available(deps: WorkerDeps, uid: str) -> int:
    async with deps.sessions() as s:
        return (await Ledger(s).balances(uid, "MCC")).available


async def audits(deps: WorkerDeps, operation: str, withdrawal_id: str) -> list[AuditLog]:
    async with deps.sessions() as s:
        rows = await s.scalars(
            select(AuditLog)
            .where(
                AuditLog.operation == operation,
                AuditLog.request_body["withdrawal_id"].astext == withdrawal_id,
            )
            .order_by(AuditLog.created_at)
        )
        return list(rows)


def problem(r: httpx.Response, status: int, slug: str) -> dict[str, Any]:
    assert r.status_code == status and r.json()["type"].endswith(f"/{slug}"), r.text
    body: dict[str, Any] = r.json()
    return body


async def test_minimum_maximum_and_the_daily_limit(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(minimum="2", maximum="10", daily_limit="15")
    user = await holder(world, deps, client, 40 * UNIT)
    assert problem(await user.withdraw("1.5"), 422, "amount-below-minimum")["minimum"] == "2"
    assert problem(await user.withdraw("10.5"), 422, "amount-limit-exceeded")["limit"] == "10"
    first = await user.withdraw("10")
    assert first.status_code == 202, first.text
    over = problem(await user.withdraw("6"), 422, "daily-limit-exceeded")
    assert (over["limit"], over["used"]) == ("15", "10")
    second = await user.withdraw("5")  # exactly the limit
    assert second.status_code == 202, second.text
    problem(await user.withdraw("2"), 422, "daily-limit-exceeded")
    assert await available(deps, user.uid) == 25 * UNIT  # only the two accepted are held
    # A withdrawal that ended without moving money does not count: cancel one, room again.
    cancel = await client.post(
        f"/v1/withdrawals/{second.json()['data']['id']}/cancel", headers=user.headers
    )
    if cancel.status_code == 200:  # (it may have been sent already: then it counts)
        assert (await user.withdraw("5")).status_code == 202
    for r in (first, second):
        assert (await user.until(r.json()["data"]["id"]))["status"] in ("completed", "cancelled")


async def _breaker_closed(deps: WorkerDeps) -> None:
    """The breaker closed, counting from now (the suite's other withdrawals share it)."""
    async with deps.sessions() as s:
        await s.execute(update(WithdrawalBreaker).values(tripped=False, reset_at=datetime.now(UTC)))
        await s.commit()


async def test_the_breaker_holds_every_withdrawal_until_an_operator_resets_it(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(hourly_outflow_limit="12")
    await _breaker_closed(deps)
    try:
        alice = await holder(world, deps, client, 20 * UNIT)
        bob = await holder(world, deps, client, 20 * UNIT)
        boss = await admin(world, client)
        under = await alice.withdraw("10")
        assert under.status_code == 202 and under.json()["data"]["attributes"]["waiting_for"] == []
        crossing = await bob.withdraw("5")  # 15 in the hour: trips it, and waits
        assert crossing.status_code == 202, crossing.text
        held = crossing.json()["data"]["attributes"]["waiting_for"]
        assert held == ["the outflow breaker (an operator resets it)"]
        after = await alice.withdraw("1")  # tripped: every new one waits, however small
        assert "the outflow breaker" in after.json()["data"]["attributes"]["waiting_for"][0]
        assert (await alice.until(under.json()["data"]["id"]))["status"] == "completed"
        state = await client.get("/v1/admin/withdrawals/breaker", headers=boss.headers)
        assert state.json()["data"]["attributes"]["tripped"] is True
        assert state.json()["data"]["attributes"]["tripped_by"] == crossing.json()["data"]["id"]
        listed = await client.get("/v1/admin/withdrawals?view=held", headers=boss.headers)
        held_ids = {w["id"] for w in listed.json()["data"]}
        assert held_ids == {crossing.json()["data"]["id"], after.json()["data"]["id"]}
        await asyncio.sleep(1.5)  # nothing moves while it is tripped
        assert (await bob.get(crossing.json()["data"]["id"]))["status"] == "pending"

        refused = await client.post(
            "/v1/admin/withdrawals/breaker/reset", json={"reason": "x"}, headers=bob.headers
        )
        problem(refused, 403, "admin-required")
        reset = await client.post(
            "/v1/admin/withdrawals/breaker/reset",
            json={"reason": "outflow checked with finance"},
            headers=boss.headers,
        )
        assert reset.status_code == 200, reset.text
        assert set(reset.json()["data"]["attributes"]["released"]) == held_ids
        for who, r in ((bob, crossing), (alice, after)):
            assert (await who.until(r.json()["data"]["id"]))["status"] == "completed"
        async with deps.sessions() as s:
            row = await s.scalar(
                select(AuditLog).where(AuditLog.operation == "admin.withdrawal.breaker_reset")
                .order_by(AuditLog.created_at.desc())
            )  # fmt: skip
        assert row is not None and row.actor == f"user:{boss.uid}"
        assert row.request_body["reason"] == "outflow checked with finance"
        again = await client.post(
            "/v1/admin/withdrawals/breaker/reset", json={"reason": "x"}, headers=boss.headers
        )
        problem(again, 409, "invalid-state")
    finally:
        await _breaker_closed(deps)


async def test_a_new_wallet_needs_a_fresh_sign_in_and_cools_off(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(cooling_off_seconds=4.0)
    user = await holder(world, deps, client, 30 * UNIT)
    waiting = await user.withdraw("3")  # to the old wallet; a change cancels it
    assert waiting.status_code == 202
    new_wallet = Keypair().pubkey()
    body = {"wallet_address": str(new_wallet)}

    async def patch(token: str, payload: dict[str, Any] = body) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"}
        return await client.patch("/v1/users/me/profile", json=payload, headers=headers)

    stale = await world.token(user.uid, "user:write", auth_time=int(time.time()) - 3600)
    refused = await patch(stale)
    assert problem(refused, 401, "fresh-sign-in-required")["max_age"] == 300
    assert "insufficient_user_authentication" in refused.headers["www-authenticate"]
    project = await world.project()
    app_client, _ = await world.oauth_client(project.project_id, allowed_scopes=CLIENT_SCOPES)
    from_app = await world.token(user.uid, "user:write", app_client)
    problem(await patch(from_app), 401, "fresh-sign-in-required")  # fresh, but a project's
    fresh = await world.token(user.uid, "user:write")
    problem(await patch(fresh, {"wallet_address": "not-a-wallet"}), 422, "validation-error")
    mint = str(deps.gateway.keys.mint_for("MCC"))
    problem(await patch(fresh, {"wallet_address": mint}), 422, "validation-error")
    custody = str(deps.gateway.custody_address(user.uid, "MCC"))  # a token account
    problem(await patch(fresh, {"wallet_address": custody}), 422, "validation-error")

    changed = await patch(fresh)
    assert changed.status_code == 200, changed.text
    assert changed.json()["data"]["attributes"]["wallet_address"] == str(new_wallet)
    cancelled = await user.until(waiting.json()["data"]["id"], "cancelled", "completed")
    if cancelled["status"] == "cancelled":  # (unless it was sent before the change)
        assert "wallet address" in cancelled["failure_reason"]

    r = await user.withdraw("5")
    assert r.status_code == 202, r.text
    shown = r.json()["data"]["attributes"]
    assert shown["wallet_address"] == str(new_wallet)
    assert shown["waiting_for"][0].startswith("the wallet's cooling-off")
    assert shown["cooling_off_until"] is not None
    await asyncio.sleep(1.5)
    assert (await user.get(r.json()["data"]["id"]))["status"] == "pending"
    final = await user.until(r.json()["data"]["id"], within=20)
    assert final["status"] == "completed", final
    destination = deps.gateway.wallet_token_account(new_wallet, "MCC")
    assert await deps.gateway.token_balance(destination, "finalized") == 5 * UNIT


async def _waiting_for_approval(user: Holder, amount: str, required: int) -> str:
    r = await user.withdraw(amount)
    assert r.status_code == 202, r.text
    shown = r.json()["data"]["attributes"]
    assert shown["approvals_required"] == required
    assert shown["waiting_for"] == [f"approval (0 of {required})"]
    withdrawal_id: str = r.json()["data"]["id"]
    return withdrawal_id


async def test_one_approval_above_the_threshold_and_a_refusal(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(approval_above="5", dual_approval_above="50")
    user = await holder(world, deps, client, 30 * UNIT)
    boss = await admin(world, client)
    assert (await user.withdraw("5")).json()["data"]["attributes"]["approvals_required"] == 0
    approved = await _waiting_for_approval(user, "6", 1)
    await asyncio.sleep(1.0)
    assert (await user.get(approved))["status"] == "pending"
    problem(await act(user, approved, "approve"), 403, "admin-required")
    r = await act(boss, approved, "approve", "known customer, verified by phone")
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["decisions"][0]["admin_uid"] == boss.uid
    assert (await user.until(approved))["status"] == "completed"
    [row] = await audits(deps, "admin.withdrawal.approve", approved)
    assert row.actor == f"user:{boss.uid}" and row.status == "success"
    assert row.request_body["reason"] == "known customer, verified by phone"

    before = await available(deps, user.uid)
    refused = await _waiting_for_approval(user, "7", 1)
    assert await available(deps, user.uid) == before - 7 * UNIT
    r = await act(boss, refused, "reject", "destination flagged")
    assert r.status_code == 200, r.text
    final = await user.until(refused)
    assert final["status"] == "rejected"
    assert final["failure_reason"] == "rejected by an administrator: destination flagged"
    assert await available(deps, user.uid) == before
    [row] = await audits(deps, "admin.withdrawal.reject", refused)
    assert row.actor == f"user:{boss.uid}"
    problem(await act(boss, refused, "approve"), 409, "invalid-state")  # audited too
    failed = await audits(deps, "admin.withdrawal.approve", refused)
    assert [a.status for a in failed] == ["failed"]

    # An administrator never decides on their own withdrawal.
    own = await holder(world, deps, client, 10 * UNIT, role="admin")
    mine = await _waiting_for_approval(own, "6", 1)
    problem(await act(own, mine, "approve"), 403, "self-approval")
    assert (await act(boss, mine, "approve")).status_code == 200
    assert (await own.until(mine))["status"] == "completed"


async def test_two_different_administrators_above_the_second_threshold(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(approval_above="5", dual_approval_above="8")
    user = await holder(world, deps, client, 30 * UNIT)
    first, second = await admin(world, client), await admin(world, client)
    withdrawal_id = await _waiting_for_approval(user, "9", 2)
    assert (await act(first, withdrawal_id, "approve")).status_code == 200
    problem(await act(first, withdrawal_id, "approve"), 409, "already-decided")
    await asyncio.sleep(1.0)
    shown = await user.get(withdrawal_id)
    assert shown["status"] == "pending" and shown["waiting_for"] == ["approval (1 of 2)"]
    r = await act(second, withdrawal_id, "approve", "second pair of eyes")
    assert r.status_code == 200, r.text
    assert [d["admin_uid"] for d in r.json()["data"]["attributes"]["decisions"]] == [
        first.uid,
        second.uid,
    ]
    assert (await user.until(withdrawal_id))["status"] == "completed"
    problem(await act(second, withdrawal_id, "reject"), 409, "invalid-state")


async def test_cancel_before_signing_by_the_user_and_by_an_operator(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(approval_above="1")
    user = await holder(world, deps, client, 20 * UNIT)
    boss = await admin(world, client)
    mine = await _waiting_for_approval(user, "4", 1)
    body = {"reason": "changed my mind"}
    r = await client.post(f"/v1/withdrawals/{mine}/cancel", json=body, headers=user.headers)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["status"] == "cancelled"
    assert r.json()["data"]["attributes"]["failure_reason"] == "changed my mind"
    again = await client.post(f"/v1/withdrawals/{mine}/cancel", headers=user.headers)
    problem(again, 409, "invalid-state")
    theirs = await _waiting_for_approval(user, "5", 1)
    r = await act(boss, theirs, "cancel", "suspicious pattern")
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["failure_reason"] == (
        "cancelled by operator: suspicious pattern"
    )
    assert await available(deps, user.uid) == 20 * UNIT
    [row] = await audits(deps, "admin.withdrawal.cancel", theirs)
    assert row.actor == f"user:{boss.uid}"
    # Their workflows end cancelled (told by a signal, not at their deadline).
    temporal = client._transport.app.state.temporal  # type: ignore[attr-defined]
    for withdrawal_id in (mine, theirs):
        handle = temporal.get_workflow_handle(f"withdrawal-{withdrawal_id}")
        result = await asyncio.wait_for(handle.result(), 15)
        assert result["status"] == "cancelled"
    # Once it completed, neither may cancel; a retry has nothing to do.
    controls(approval_above="1000")
    done = await user.withdraw("2")
    await user.until(done.json()["data"]["id"])
    problem(await act(boss, done.json()["data"]["id"], "cancel"), 409, "invalid-state")
    problem(await act(boss, done.json()["data"]["id"], "retry"), 409, "invalid-state")


async def test_a_wait_past_its_deadline_is_cancelled_and_released(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(approval_above="1", max_wait_seconds=2.0)
    user = await holder(world, deps, client, 10 * UNIT)
    withdrawal_id = await _waiting_for_approval(user, "3", 1)
    assert await available(deps, user.uid) == 7 * UNIT
    final = await user.until(withdrawal_id, within=20)
    assert final["status"] == "cancelled"
    assert final["failure_reason"].startswith("not sent by its deadline")
    assert await available(deps, user.uid) == 10 * UNIT


async def test_a_retry_restarts_a_vanished_workflow_which_then_hears_the_approval(
    world: World, deps: WorkerDeps, client: httpx.AsyncClient, controls: Controls
) -> None:
    controls(approval_above="1")
    user = await holder(world, deps, client, 10 * UNIT)
    boss = await admin(world, client)
    withdrawal_id = await _waiting_for_approval(user, "2", 1)
    temporal = client._transport.app.state.temporal  # type: ignore[attr-defined]
    await asyncio.sleep(0.5)
    await temporal.get_workflow_handle(f"withdrawal-{withdrawal_id}").terminate("lost")
    r = await act(boss, withdrawal_id, "retry", "its workflow was terminated")
    assert r.status_code == 200, r.text
    retried = r.json()["data"]["attributes"]
    assert retried["workflow_restarted"] is True and retried["status"] == "pending"
    assert retried["workflow_id"].startswith(f"withdrawal-{withdrawal_id}-retry-")
    again = await act(boss, withdrawal_id, "retry")  # running now: nothing restarted
    assert again.json()["data"]["attributes"]["workflow_restarted"] is False
    assert (await act(boss, withdrawal_id, "approve")).status_code == 200
    # The approval's signal reaches the restarted run: it goes at once, not within the hour.
    assert (await user.until(withdrawal_id, within=20))["status"] == "completed"
    rows = await audits(deps, "admin.withdrawal.retry", withdrawal_id)
    assert [r.actor for r in rows] == [f"user:{boss.uid}"] * 2
