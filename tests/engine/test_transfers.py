"""Transfers end to end: accepted as pending, settled on chain exactly once, verified, booked;
settlement of a lock; cancel racing the broadcast; operators; reconciliation."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import pytest
from fastapi import FastAPI
from psycopg.pq import Trace
from sqlalchemy import event, func, select
from temporalio.client import Client

from activities.deps import WorkerDeps
from chain.decimals import TokenDecimals
from core.errors import InvalidState, NotFound, Rejected
from db.last import PendingLastSteps, commit_last, flush_last
from db.models.access import AuditLog, IdempotencyRecord
from db.models.chain import ChainTransaction
from db.models.engine import Transfer, TransferState
from db.models.events import Event
from db.models.ledger import Hold, LedgerEntry
from engine import transfers
from ledger.service import Ledger
from tests.engine.conftest import UNIT, Api, funded_user
from tests.factories import World
from workflows.reconcile import ReconcileInput, ReconcileWorkflow


async def wait_final(api: Api, transfer_id: str, within: float = 20.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        r = await api.get(f"/v1/transfer/{transfer_id}")
        assert r.status_code == 200, r.text
        attributes: dict[str, Any] = r.json()["data"]["attributes"]
        if attributes["status"] in ("completed", "failed", "cancelled"):
            return attributes
        if asyncio.get_running_loop().time() > deadline:
            temporal = api.client._transport.app.state.temporal  # type: ignore[attr-defined]
            handle = temporal.get_workflow_handle(f"transfer-{transfer_id}")
            try:
                events = [str(e)[:300] async for e in handle.fetch_history_events()]
            except Exception as exc:
                events = [repr(exc)]
            raise AssertionError(f"{attributes} not final; workflow history: {events}")
        await asyncio.sleep(0.1)


def transfer_body(src: str, dst: str, amount: str, **extra: Any) -> dict[str, Any]:
    return {
        "transfer_type": "auction_settlement",
        "from_uid": src,
        "to_uid": dst,
        "currency": "MCC",
        "amount": amount,
        "reference": {"auction_id": "a-1"},
        "requires_onchain": True,
        **extra,
    }


async def books(deps: WorkerDeps, uid: str) -> tuple[int, int, int]:
    async with deps.sessions() as s:
        b = await Ledger(s).balances(uid, "MCC")
    return b.balance, b.held, b.pending_out


async def test_transfer_completes_on_chain_and_in_the_ledger(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    src = await funded_user(world, deps, api.project.project_id, 50 * UNIT)
    dst = await funded_user(world, deps, api.project.project_id, 0)
    r = await api.post("/v1/transfer/request", transfer_body(src, dst, "20"))
    assert r.status_code == 202, r.text
    data = r.json()["data"]
    assert data["type"] == "transfer" and data["attributes"]["status"] == "pending"
    assert await books(deps, src) == (50 * UNIT, 0, 20 * UNIT)  # reserved before the answer

    final = await wait_final(api, data["id"])
    assert final["status"] == "completed", final
    assert [h["status"] for h in final["history"]] == ["pending", "pending_onchain", "completed"]
    assert final["tx_signature"] and final["block_height"] is not None
    assert await deps.gateway.custody_balance(src, "MCC") == 30 * UNIT
    assert await deps.gateway.custody_balance(dst, "MCC") == 20 * UNIT
    assert await books(deps, src) == (30 * UNIT, 0, 0)
    assert await books(deps, dst) == (20 * UNIT, 0, 0)
    async with deps.sessions() as s:
        evts = list(
            await s.scalars(select(Event).where(Event.data["transfer_id"].astext == data["id"]))
        )
    assert [e.type for e in evts] == ["transfer.completed"]
    assert evts[0].data["tx_signature"] == final["tx_signature"]

    # Unknown, foreign and malformed requests are clean problems.
    assert (await api.get("/v1/transfer/tr_nope")).status_code == 404
    r = await api.post("/v1/transfer/request", transfer_body(src, src, "1"))
    assert r.status_code == 422
    r = await api.post("/v1/transfer/request", transfer_body(src, dst, "1000"))
    assert r.status_code == 422 and r.json()["type"].endswith("/insufficient-funds")
    r = await api.post("/v1/transfer/request", transfer_body(src, dst, "5000.1"))
    assert r.status_code == 422 and r.json()["type"].endswith("/amount-limit-exceeded")
    assert await books(deps, src) == (30 * UNIT, 0, 0)


async def test_settlement_consumes_the_lock(api: Api, world: World, deps: WorkerDeps) -> None:
    src = await funded_user(world, deps, api.project.project_id, 40 * UNIT)
    dst = await funded_user(world, deps, api.project.project_id, 0)
    expires = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    lock = await api.post(
        "/v1/funds/lock",
        {"user_uid": src, "currency": "MCC", "amount": "30", "reason": "auction_bid",
         "reference_id": "a-2", "expires_at": expires},
    )  # fmt: skip
    lock_id = lock.json()["data"]["id"]
    body = transfer_body(src, dst, "25", reference={"auction_id": "a-2", "lock_id": lock_id})
    r = await api.post("/v1/transfer/request", body)
    assert r.status_code == 202, r.text
    # The hold is consumed at once: 25 outgoing, the unused 5 available again.
    assert await books(deps, src) == (40 * UNIT, 0, 25 * UNIT)
    assert (await wait_final(api, r.json()["data"]["id"]))["status"] == "completed"
    async with deps.sessions() as s:
        hold = await s.get(Hold, lock_id)
        assert hold is not None and hold.status == "posted"
    assert await books(deps, src) == (15 * UNIT, 0, 0)
    assert await deps.gateway.custody_balance(dst, "MCC") == 25 * UNIT
    # A settled lock can neither be unlocked nor settle twice.
    assert (
        await api.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "x"})
    ).status_code == 409
    r = await api.post("/v1/transfer/request", body)
    assert r.status_code == 409 and r.json()["type"].endswith("/invalid-state")


async def test_cancel_racing_the_broadcast_has_exactly_one_outcome(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    src = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    dst = await funded_user(world, deps, api.project.project_id, 0)
    outcomes = []
    for _ in range(4):
        r = await api.post("/v1/transfer/request", transfer_body(src, dst, "1"))
        transfer_id = r.json()["data"]["id"]
        cancel = await api.post(f"/v1/transfer/{transfer_id}/cancel", {"reason": "changed mind"})
        final = await wait_final(api, transfer_id)
        async with deps.sessions() as s:
            chain_rows = await s.scalar(
                select(func.count())
                .select_from(ChainTransaction)
                .join(Transfer, Transfer.op_key == ChainTransaction.op_key)
                .where(Transfer.id == transfer_id)
            )
        if cancel.status_code == 200:
            assert final["status"] == "cancelled" and chain_rows == 0
        else:
            assert cancel.status_code == 409, cancel.text
            assert final["status"] == "completed" and chain_rows == 1
        outcomes.append(final["status"])
    moved = outcomes.count("completed") * UNIT
    assert await deps.gateway.custody_balance(dst, "MCC") == moved
    assert await books(deps, src) == (10 * UNIT - moved, 0, 0)


async def test_a_transfer_to_an_unknown_user_writes_nothing(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    src = await funded_user(world, deps, api.project.project_id, 5 * UNIT)
    r = await api.post("/v1/transfer/request", transfer_body(src, "u_nobody_at_all", "1"))
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["type"].endswith("/validation-error")
    assert problem["errors"] == [{"field": "to_uid", "message": "unknown user"}]
    assert await books(deps, src) == (5 * UNIT, 0, 0)  # nothing reserved
    async with deps.sessions() as s:
        rows = await s.scalar(
            select(func.count()).select_from(Transfer).where(Transfer.from_uid == src)
        )
    assert rows == 0
    # The same key then succeeds once the request is right: the refusal stored no answer.
    dst = (await world.user()).uid
    body = {**transfer_body(src, dst, "1"), "idempotency_key": uuid.uuid4().hex}
    bad = await api.client.post(
        "/v1/transfer/request", json={**body, "to_uid": "u_nobody_at_all"}, headers=api.headers
    )
    assert bad.status_code == 422
    good = await api.client.post("/v1/transfer/request", json=body, headers=api.headers)
    assert good.status_code == 202, good.text
    assert await books(deps, src) == (5 * UNIT, 0, UNIT)


async def test_funds_and_the_day_count_are_taken_last_and_never_skipped(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    """The sender's reservation and the day's limit count run at the commit point (db.last):
    over the funds the request is refused there with nothing written; a commit point that
    forgot to run them is refused instead of committing a transfer without its reservation."""
    src = await funded_user(world, deps, api.project.project_id, 2 * UNIT)
    dst = (await world.user()).uid
    r = await api.post("/v1/transfer/request", transfer_body(src, dst, "3"))
    assert r.status_code == 422 and r.json()["type"].endswith("/insufficient-funds"), r.text
    assert r.json()["available_balance"] == "2"  # read by the refusing statement itself
    assert await books(deps, src) == (2 * UNIT, 0, 0)

    transfer_id = f"tr_{uuid.uuid4().hex}"
    async with deps.sessions() as s:
        await transfers.create(
            s, transfers.NewTransfer(
                transfer_id=transfer_id, project_id=api.project.project_id, transfer_type="test",
                from_uid=src, to_uid=dst, currency="MCC", amount=UNIT, reference={},
                requires_onchain=True,
            ), TokenDecimals(9, 9),
        )  # fmt: skip
        with pytest.raises(PendingLastSteps):
            await s.commit()
    async with deps.sessions() as s:
        assert await s.get(Transfer, transfer_id) is None
    assert await books(deps, src) == (2 * UNIT, 0, 0)


class RoundTrips:
    """The round trips to PostgreSQL of the connections an engine hands out while counting:
    libpq's protocol trace of each, where a run of the client's messages followed by the
    server's answer is one (a pipeline's statements and its Sync go out together)."""

    def __init__(self, engine: Any, directory: Path) -> None:
        self.engine, self.directory = engine, directory
        self.traces: list[tuple[Any, IO[str]]] = []

    def _out(self, dbapi_connection: Any, _record: object, _proxy: object) -> None:
        pgconn = dbapi_connection.driver_connection.pgconn
        trace = (self.directory / f"trace-{len(self.traces)}.txt").open("w")
        self.traces.append((pgconn, trace))
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)

    def __enter__(self) -> RoundTrips:
        event.listen(self.engine, "checkout", self._out)
        return self

    def __exit__(self, *_: object) -> None:
        event.remove(self.engine, "checkout", self._out)
        for pgconn, trace in self.traces:
            pgconn.untrace()
            trace.close()

    def count(self, containing: str) -> list[int]:
        """The round trips of each connection checked out that sent ``containing``."""
        counts = []
        for index in range(len(self.traces)):
            text = (self.directory / f"trace-{index}.txt").read_text()
            if containing not in text:
                continue
            trips, previous = 0, ""
            for line in text.splitlines():
                side = next((f for f in line.split("\t")[:2] if f in ("F", "B")), "")
                if side == "B" and previous == "F":
                    trips += 1
                previous = side or previous
            counts.append(trips)

        return counts


async def test_an_accept_sends_its_claim_and_reservation_with_the_commit(
    api: Api, world: World, deps: WorkerDeps, app: FastAPI, tmp_path: Path
) -> None:
    """Issue 43: an accept is 2 round trips to PostgreSQL (6 before pass four, 3 after it):
    BEGIN with the transfer's INSERT (db.last.begin_with; pass five: psycopg's own BEGIN was a
    round trip of its own), then the idempotency claim (with the audit row), the sender's
    reservation, the day's count and the COMMIT in one (db.last's pipeline), where the claim
    and the reservation each cost one of their own before pass four. All are written."""
    src = await funded_user(world, deps, api.project.project_id, 5 * UNIT)
    dst = (await world.user()).uid
    warm = await api.post("/v1/transfer/request", transfer_body(src, dst, "1"))
    assert warm.status_code == 202, warm.text  # the project's and the user's caches are warm
    seen: list[str] = []

    def note(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        seen.append(statement)

    engine = app.state.session_maker.kw["bind"].sync_engine
    key = uuid.uuid4().hex
    event.listen(engine, "before_cursor_execute", note)
    try:
        with RoundTrips(engine, tmp_path) as trips:
            r = await api.post(
                "/v1/transfer/request", transfer_body(src, dst, "2", idempotency_key=key)
            )
    finally:
        event.remove(engine, "before_cursor_execute", note)
    assert r.status_code == 202, r.text
    # (The access layer may read the project on a connection of its own: not the accept's.)
    # Every write goes on the driver's connection, in db.last's two pipelines.
    assert not [s for s in seen if "INSERT" in s or "UPDATE" in s], seen
    assert trips.count("INSERT INTO transfers") == [2]
    transfer_id = r.json()["data"]["id"]
    async with deps.sessions() as s:
        reserved = await s.scalar(
            select(func.sum(LedgerEntry.d_pending_out)).where(
                LedgerEntry.reference == transfer_id, LedgerEntry.kind == "begin_out"
            )
        )
        claimed = await s.scalar(
            select(func.count()).select_from(IdempotencyRecord).where(IdempotencyRecord.key == key)
        )
        audited = await s.scalar(select(AuditLog.status).where(AuditLog.idempotency_key == key))
    assert (reserved, claimed, audited) == (2 * UNIT, 1, "pending")
    async with deps.sessions() as s:
        recorded = await s.scalar(
            select(func.count())
            .select_from(TransferState)
            .where(TransferState.transfer_id == transfer_id)
        )
    assert (recorded or 0) >= 1  # its first state, written with it


async def test_over_the_daily_limit_the_reservation_is_undone_too(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    """The day's count is sent with the COMMIT (db.last) after the sender's reservation ran: a
    count that does not fit stops the commit, and the reservation goes with it."""
    project = Api(api.client, await world.project(limits={"transfer": {"MCC": {"per_day": "3"}}}))
    src = await funded_user(world, deps, project.project.project_id, 10 * UNIT)
    dst = (await world.user()).uid
    r = await project.post("/v1/transfer/request", transfer_body(src, dst, "2"))
    assert r.status_code == 202, r.text
    first = r.json()["data"]["id"]
    r = await project.post("/v1/transfer/request", transfer_body(src, dst, "2"))
    assert r.status_code == 422 and r.json()["type"].endswith("/daily-limit-exceeded"), r.text
    assert r.json()["limit"] == "3"
    assert (await wait_final(project, first))["status"] == "completed"
    async with deps.sessions() as s:
        count = await s.scalar(
            select(func.count()).select_from(Transfer).where(Transfer.from_uid == src)
        )
    assert count == 1
    assert await books(deps, src) == (8 * UNIT, 0, 0)  # the first transfer's debit alone


async def test_funds_transfer_needs_both_users(api: Api, world: World, deps: WorkerDeps) -> None:
    src = await funded_user(world, deps, api.project.project_id, 5 * UNIT)
    outsider = await world.user()
    body = {"from_uid": src, "to_uid": outsider.uid, "currency": "MCC", "amount": "1"}
    r = await api.post("/v1/funds/transfer", body)
    assert r.status_code == 403
    await world.consent(outsider.uid, api.project.project_id)
    r = await api.post("/v1/funds/transfer", {**body, "reason": "trade"})
    assert r.status_code == 202, r.text
    assert (await wait_final(api, r.json()["data"]["id"]))["status"] == "completed"
    assert await books(deps, outsider.uid) == (UNIT, 0, 0)


async def _admin_headers(world: World) -> dict[str, str]:
    admin = await world.user(role="admin")
    return {"Authorization": f"Bearer {await world.token(admin.uid, 'openid')}"}


async def test_operator_lists_cancels_and_retries_stuck_transfers(
    api: Api, world: World, deps: WorkerDeps, app: FastAPI
) -> None:
    src = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    dst = await funded_user(world, deps, api.project.project_id, 0)
    ids = []
    async with deps.sessions() as s:  # accepted, but their workflows never started
        for _ in range(2):
            t = await transfers.create(
                s, transfers.NewTransfer(
                    transfer_id=f"tr_{uuid.uuid4().hex}", project_id=api.project.project_id,
                    transfer_type="test", from_uid=src, to_uid=dst, currency="MCC", amount=UNIT,
                    reference={}, requires_onchain=True,
                ), TokenDecimals(9, 9),
            )  # fmt: skip
            ids.append(t.id)
        await flush_last(s)  # as the API's commit point does (db.last)
        await s.commit()
    headers = await _admin_headers(world)
    user_headers = {"Authorization": f"Bearer {await world.token(dst, 'openid')}"}
    r = await api.client.get("/v1/admin/transfers/stuck?older_than_seconds=0", headers=user_headers)
    assert r.status_code == 403 and r.json()["type"].endswith("/admin-required")
    r = await api.client.get("/v1/admin/transfers/stuck?older_than_seconds=0", headers=headers)
    assert r.status_code == 200
    assert set(ids) <= {t["id"] for t in r.json()["data"]}

    r = await api.client.post(f"/v1/admin/transfers/{ids[0]}/cancel", headers=headers, json={})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["status"] == "cancelled"
    r = await api.client.post(f"/v1/admin/transfers/{ids[1]}/retry", headers=headers, json={})
    assert r.status_code == 200, r.text
    assert (await wait_final(api, ids[1]))["status"] == "completed"
    r = await api.client.post(f"/v1/admin/transfers/{ids[1]}/cancel", headers=headers, json={})
    assert r.status_code == 409
    assert await books(deps, src) == (9 * UNIT, 0, 0)
    async with deps.sessions() as s:
        from db.models.access import AuditLog

        ops = list(
            await s.scalars(
                select(AuditLog.operation).where(AuditLog.operation.like("admin.transfer.%"),
                                                 AuditLog.user_uid == src)
            )
        )  # fmt: skip
    assert sorted(ops) == ["admin.transfer.cancel", "admin.transfer.cancel", "admin.transfer.retry"]


async def test_reconciliation_reports_drift_made_on_purpose(
    api: Api, world: World, deps: WorkerDeps, app: FastAPI, queue: str
) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 3 * UNIT)
    async with deps.sessions() as s:  # the ledger claims funds the chain never received
        await Ledger(s).credit(uid, "MCC", 2 * UNIT, "drift-on-purpose")
        await s.commit()
    client: Client = app.state.temporal
    report = await client.execute_workflow(
        ReconcileWorkflow.run,
        ReconcileInput(),
        id=f"reconcile-test-{uuid.uuid4().hex[:8]}",
        task_queue=queue,
    )
    mine = [d for d in report.drifts if d["user_uid"] == uid]
    assert mine == [
        {
            "user_uid": uid,
            "currency": "MCC",
            "address": str(deps.gateway.custody_address(uid, "MCC")),
            "chain_balance": 3 * UNIT,
            "ledger_balance": 5 * UNIT,
            "drift": -2 * UNIT,
        }
    ]
    headers = await _admin_headers(world)
    r = await api.client.get(
        f"/v1/admin/reconciliation/drifts?run_id={report.run_id}", headers=headers
    )
    assert r.status_code == 200
    assert uid in {d["attributes"]["user_uid"] for d in r.json()["data"]}
    async with deps.sessions() as s:  # reconciliation never moves money
        assert await Ledger(s).balances(uid, "MCC") == (await Ledger(s).balances(uid, "MCC"))
        assert (
            await s.scalar(
                select(func.count()).select_from(Transfer).where(Transfer.from_uid == uid)
            )
        ) == 0


async def test_reconciliation_skips_only_the_accounts_whose_chain_may_lead(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    """The ledger claims 2 MCC more than custody holds in three accounts: the one with nothing
    in flight is reported; the one with a withdrawal being written and the one whose history is
    still caught up are skipped (the chain may lead their ledger there). The snapshot is one
    statement of tagged rows (issue 43): a balance taken for an account in flight would hide
    real drift, an account in flight taken for a balance would report drift that is not."""
    from sqlalchemy import update

    from db.models.tokens import CustodyWatch
    from db.models.withdrawals import Withdrawal
    from engine.reconcile import reconcile
    from tokens.deposits import register

    project_id = api.project.project_id
    plain, withdrawing, catching = [
        await funded_user(world, deps, project_id, 3 * UNIT) for _ in range(3)
    ]
    async with deps.sessions() as s:
        for uid in (plain, withdrawing, catching):
            await Ledger(s).credit(uid, "MCC", 2 * UNIT, f"drift-on-purpose:{uid}")
        s.add(
            Withdrawal(
                id=f"wd-{uuid.uuid4().hex[:12]}", user_uid=withdrawing, currency="MCC",
                amount=UNIT, status="pending_onchain", wallet_address="w", destination="d",
                wait_deadline=datetime.now(UTC) + timedelta(hours=1),
            )
        )  # fmt: skip
        await register(s, deps.gateway, catching, "MCC")
        await s.execute(
            update(CustodyWatch)
            .where(CustodyWatch.user_uid == catching, CustodyWatch.currency == "MCC")
            .values(ready=False)
        )
        await s.commit()
    summary = await reconcile(deps.sessions, deps.gateway, uuid.uuid4().hex)
    drifted = {(d["user_uid"], d["currency"]): d["drift"] for d in summary.drifts}
    assert drifted.get((plain, "MCC")) == -2 * UNIT
    assert (withdrawing, "MCC") not in drifted and (catching, "MCC") not in drifted
    assert summary.skipped >= 2 and summary.checked >= 1


async def test_the_service_owns_the_same_user_and_the_pending_only_cancel_rules(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    """engine.transfers decides, whoever calls it (the project's routes, an operator): a
    transfer to the sender themself is refused before anything is counted, and only a pending
    transfer can be cancelled (then its funds are available again)."""
    project_id = api.project.project_id
    src = await funded_user(world, deps, project_id, 5 * UNIT)
    dst = await funded_user(world, deps, project_id, 0)
    nine = TokenDecimals(9, 9)

    def order(to_uid: str) -> transfers.NewTransfer:
        return transfers.NewTransfer(
            transfer_id=f"tr_{uuid.uuid4().hex}", project_id=project_id, transfer_type="test",
            from_uid=src, to_uid=to_uid, currency="MCC", amount=UNIT,
        )  # fmt: skip

    async with deps.sessions() as s:
        with pytest.raises(Rejected) as refused:
            await transfers.create(s, order(src), nine)
        assert refused.value.slug == "validation-error"
        assert refused.value.extra["errors"] == [
            {"field": "to_uid", "message": "must differ from from_uid"}
        ]
        kept, claimed = [await transfers.create(s, order(dst), nine) for _ in range(2)]
        await flush_last(s)
        await s.commit()
    assert await books(deps, src) == (5 * UNIT, 0, 2 * UNIT)

    async with deps.sessions() as s:
        await transfers.claim(s, [claimed.id], transfers.op_key_for(claimed.id))
        ended = await transfers.cancel_pending(s, kept.id, "not wanted", decimals=nine)
        assert ended.status == "cancelled"
        with pytest.raises(InvalidState) as late:
            await transfers.cancel_pending(s, claimed.id, "too late", decimals=nine)
        assert late.value.extra == {"transfer_status": "pending_onchain"}
        with pytest.raises(NotFound):
            await transfers.cancel_pending(s, "tr_missing", "no such", decimals=nine)
        # Ends the claimed one too (its chain write was never made), so nothing stays in flight.
        assert await transfers.fail(s, claimed.id, "test over", decimals=nine) is not None
        await s.commit()
    assert await books(deps, src) == (5 * UNIT, 0, 0)


async def test_a_batchs_claim_and_completion_run_one_statement_built_once(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    """The settler's two moves of a batch (the claim, then the completion with its events and
    audit outcomes) run statements built once, not an expression (and its cache key) per call,
    and the same SQL text whatever the batch's size (an ``IN`` list is a new text, and a new
    prepared statement, for each size): a batch of two and one of three execute the very same
    statement objects and texts, and each batch's rows, events and books hold its own values.
    A completion run again books nothing twice. The old code built both per call, with an
    ``IN`` list."""
    project_id = api.project.project_id
    src = await funded_user(world, deps, project_id, 5 * UNIT)
    dst = await funded_user(world, deps, project_id, 0)
    nine = TokenDecimals(9, 9)

    def order() -> transfers.NewTransfer:
        return transfers.NewTransfer(
            transfer_id=f"tr_{uuid.uuid4().hex}", project_id=project_id, transfer_type="test",
            from_uid=src, to_uid=dst, currency="MCC", amount=UNIT,
        )  # fmt: skip

    async with deps.sessions() as s:
        made = [await transfers.create(s, order(), nine) for _ in range(5)]
        await flush_last(s)
        await s.commit()
    batches = [sorted(t.id for t in made[:2]), sorted(t.id for t in made[2:])]

    bind = deps.sessions.kw["bind"].sync_engine
    clauses: list[object] = []
    texts: list[str] = []

    def seen_clause(conn: object, clause: object, *args: object) -> None:
        clauses.append(clause)

    def seen_text(conn: object, cursor: object, statement: str, *args: object) -> None:
        texts.append(statement)

    async def settle(ids: list[str], n: int) -> tuple[list[object], list[str]]:
        clauses.clear()
        texts.clear()
        op_key = transfers.new_batch_op_key()
        async with deps.sessions() as s:
            claimed = await transfers.claim(s, ids, op_key)
            await s.commit()
        async with deps.sessions() as s:
            done = await transfers.complete_many(
                s, claimed, signature=f"sig{n}", slot=100 + n, block_height=90 + n, decimals=nine
            )
            await commit_last(s)
        assert [t.id for t in done] == ids
        assert [t.op_key for t in claimed] == [op_key] * len(ids)
        moves = [c for c in clauses if getattr(c, "is_select", False)]
        return moves, [t for t in texts if "transfer_states" in t]

    event.listen(bind, "before_execute", seen_clause)
    event.listen(bind, "before_cursor_execute", seen_text)
    try:
        one = await settle(batches[0], 1)
        two = await settle(batches[1], 2)
    finally:
        event.remove(bind, "before_execute", seen_clause)
        event.remove(bind, "before_cursor_execute", seen_text)
    assert len(one[0]) == len(two[0]) == 2  # the claim and the completion
    assert all(a is b for a, b in zip(one[0], two[0], strict=True))
    assert len(one[1]) == 2 and one[1] == two[1]

    async with deps.sessions() as s:
        rows = (await s.scalars(select(Transfer).where(Transfer.from_uid == src))).all()
        events = (await s.scalars(select(Event).where(Event.id.like("evt_tr_%_completed")))).all()
    by_id = {t.id: t for t in rows}
    for n, ids in enumerate(batches, start=1):
        for i in ids:
            t = by_id[i]
            assert (t.status, t.signature, t.slot, t.block_height) == (
                "completed",
                f"sig{n}",
                100 + n,
                90 + n,
            )
            assert t.onchain_at is not None and t.finished_at is not None
    mine = {e.data["transfer_id"]: e for e in events if e.data["transfer_id"] in by_id}
    assert sorted(mine) == sorted(by_id)
    for n, ids in enumerate(batches, start=1):
        for i in ids:
            data, at = mine[i].data, mine[i].created_at
            assert (data["status"], data["tx_signature"], data["slot"]) == (
                "completed",
                f"sig{n}",
                100 + n,
            )
            assert at is not None
    async with deps.sessions() as s:
        again = await transfers.complete_many(
            s, rows, signature="sig9", slot=1, block_height=1, decimals=nine
        )
        await commit_last(s)
    assert again == []
    assert await books(deps, src) == (0, 0, 0)
    assert await books(deps, dst) == (5 * UNIT, 0, 0)
