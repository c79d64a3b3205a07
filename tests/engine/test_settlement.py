"""Settlement packs several transfers into one chain transaction and still books, fails and
resumes each transfer on its own (engine.settlement), against the real database and chain."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from datetime import UTC, datetime

from solders.transaction import VersionedTransaction
from sqlalchemy import select

from activities.deps import WorkerDeps
from chain.custody import CustodyTransfer
from chain.decimals import TokenDecimals
from chain.gateway import PACKET_DATA_SIZE
from db.last import flush_last
from db.models.chain import ChainTransaction, ChainTxAttempt
from db.models.engine import Transfer, TransferState
from db.models.events import Event
from engine import transfers
from engine.settlement import FULL_BATCH, Settler
from ledger.service import Ledger
from tests.engine.conftest import UNIT, Api, funded_user
from tests.engine.test_transfers import books
from tests.factories import World


def settler(deps: WorkerDeps) -> Settler:
    # A long linger makes the transfers settled together meet in one batch deterministically.
    return Settler(deps.sessions, deps.gateway, linger=0.3)


async def accept(deps: WorkerDeps, project_id: int, legs: list[tuple[str, str, int]]) -> list[str]:
    """Transfers accepted (funds reserved, `pending`) exactly as the API records them."""
    ids = []
    async with deps.sessions() as s:
        for src, dst, amount in legs:
            t = await transfers.create(
                s, transfers.NewTransfer(
                    transfer_id=f"tr_{uuid.uuid4().hex}", project_id=project_id,
                    transfer_type="test", from_uid=src, to_uid=dst, currency="MCC", amount=amount,
                    reference={}, requires_onchain=True,
                ), TokenDecimals(9, 9),
            )  # fmt: skip
            ids.append(t.id)
        await flush_last(s)  # as the API's commit point does (db.last)
        await s.commit()
    return ids


async def rows(deps: WorkerDeps, ids: list[str]) -> dict[str, Transfer]:
    async with deps.sessions() as s:
        found = await s.scalars(select(Transfer).where(Transfer.id.in_(ids)))
        return {t.id: t for t in found}


async def test_a_full_batch_is_what_one_transaction_holds(deps: WorkerDeps) -> None:
    """The settler takes at most ``FULL_BATCH`` arrivals a batch: as many transfers between distinct
    users as the packer puts in one transaction, so that a busy worker's batches are sent as
    one full write each, never as a full one and a rest of one or two."""
    await deps.gateway.load_token_decimals()
    legs = [
        deps.gateway.transfer_instruction(CustodyTransfer("MCC", f"u_from_{i}", f"u_to_{i}", 1))
        for i in range(FULL_BATCH + 1)
    ]
    assert deps.gateway.fits_one_transaction(legs[:FULL_BATCH])
    assert not deps.gateway.fits_one_transaction(legs)


async def test_transfers_settled_together_share_transactions_and_keep_their_own_records(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    pid = api.project.project_id
    senders = await asyncio.gather(*(funded_user(world, deps, pid, 5 * UNIT) for _ in range(13)))
    receivers = [(await world.user()).uid for _ in range(13)]
    legs = [
        (s, r, (i + 1) * UNIT // 10)
        for i, (s, r) in enumerate(zip(senders, receivers, strict=True))
    ]
    legs.append((senders[0], receivers[1], UNIT))  # a sender twice: net deltas still add up
    ids = await accept(deps, pid, legs)

    alone = await settler(deps).settle(ids[0])
    together = settler(deps)
    outcomes = [alone, *await asyncio.gather(*(together.settle(i) for i in ids[1:]))]
    assert {o.status for o in outcomes} == {"completed"}

    done = await rows(deps, ids)
    writes = {t.op_key for t in done.values()}
    # 13 transfers settled together: more than fit one transaction (10 distinct pairs), so
    # exactly two; the first, settled alone, in its own.
    assert len(writes) == 3, writes
    async with deps.sessions() as s:
        chain_rows = list(
            await s.scalars(select(ChainTransaction).where(ChainTransaction.op_key.in_(writes)))
        )
        attempts = list(
            await s.scalars(
                select(ChainTxAttempt).where(
                    ChainTxAttempt.chain_tx_id.in_([r.id for r in chain_rows])
                )
            )
        )
        history = list(
            await s.scalars(select(TransferState).where(TransferState.transfer_id.in_(ids)))
        )
        events = list(
            await s.scalars(select(Event).where(Event.data["transfer_id"].astext.in_(ids)))
        )
    assert {r.status for r in chain_rows} == {"succeeded"} and len(attempts) == 3
    assert max(len(r.tx_bytes) for r in chain_rows) <= PACKET_DATA_SIZE
    biggest = max(chain_rows, key=lambda r: len(r.tx_bytes))
    assert len(VersionedTransaction.from_bytes(biggest.tx_bytes).message.instructions) >= 10
    for t in done.values():  # each transfer: its own states, event and the write's signature
        mine = [h.status for h in sorted(history, key=lambda h: h.id) if h.transfer_id == t.id]
        assert mine == ["pending", "pending_onchain", "completed"]
        assert t.signature == next(r.signature for r in chain_rows if r.op_key == t.op_key)
    assert sorted(
        e.data["transfer_id"] for e in events if e.type == "transfer.completed"
    ) == sorted(ids)
    # Chain and ledger agree to the base unit, per user.
    expected: dict[str, int] = {}
    for src, dst, amount in legs:
        expected[src] = expected.get(src, 5 * UNIT) - amount
        expected[dst] = expected.get(dst, 0) + amount
    for uid, amount in expected.items():
        assert await deps.gateway.custody_balance(uid, "MCC") == amount, uid
        assert await books(deps, uid) == (amount, 0, 0), uid


async def test_a_failed_batch_splits_and_only_the_bad_transfer_fails(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    pid = api.project.project_id
    good = await funded_user(world, deps, pid, 5 * UNIT)
    drifted = await funded_user(world, deps, pid, 0)
    async with deps.sessions() as s:  # the ledger believes in funds the chain never received
        await Ledger(s).credit(drifted, "MCC", 5 * UNIT, "drift-on-purpose")
        await s.commit()
    await deps.gateway.ensure_custody_account(drifted, "MCC")
    dst = (await world.user()).uid
    ids = await accept(deps, pid, [(good, dst, UNIT), (drifted, dst, UNIT), (good, dst, 2 * UNIT)])

    one = settler(deps)
    outcomes = dict(zip(ids, await asyncio.gather(*(one.settle(i) for i in ids)), strict=True))

    assert outcomes[ids[1]].status == "failed"
    assert "chain rejected" in (outcomes[ids[1]].error or "")
    assert outcomes[ids[0]].status == outcomes[ids[2]].status == "completed"
    done = await rows(deps, ids)
    # The three were first claimed into one write, which the chain refused as a whole; each
    # then went on in a write of its own.
    assert {t.op_key for t in done.values()} == {transfers.op_key_for(i) for i in ids}
    async with deps.sessions() as s:
        refused = list(
            await s.scalars(
                select(ChainTransaction).where(ChainTransaction.op_key.like("transfers:%"))
            )
        )
    assert any(
        r.status == "failed" and len(r.meta["transfers"]) == 3
        and {t["from_uid"] for t in r.meta["transfers"]} == {good, drifted}
        for r in refused
    )  # fmt: skip
    assert await deps.gateway.custody_balance(dst, "MCC") == 3 * UNIT
    assert await books(deps, good) == (2 * UNIT, 0, 0)
    assert await books(deps, drifted) == (5 * UNIT, 0, 0)  # reserved funds available again
    async with deps.sessions() as s:
        failed = await s.scalar(
            select(Event).where(
                Event.type == "transfer.failed", Event.data["transfer_id"].astext == ids[1]
            )
        )
    assert failed is not None


async def test_a_claimed_batch_whose_process_died_before_signing_is_resumed_once(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    pid = api.project.project_id
    src = await funded_user(world, deps, pid, 5 * UNIT)
    dst = (await world.user()).uid
    ids = await accept(deps, pid, [(src, dst, UNIT), (src, dst, 2 * UNIT)])
    op_key = transfers.new_batch_op_key()
    async with deps.sessions() as s:  # claimed, then the process died: nothing signed yet
        claimed = await transfers.claim(s, ids, op_key)
        await s.commit()
    assert [t.id for t in claimed] == sorted(ids)

    # Another process, one activity retry each, concurrently: the write is rebuilt from its
    # members, signed once and booked once.
    fresh = Settler(deps.sessions, deps.gateway)
    outcomes = await asyncio.gather(fresh.settle(ids[0]), settler(deps).settle(ids[1]))
    assert {o.status for o in outcomes} == {"completed"}
    async with deps.sessions() as s:
        write = await s.scalar(select(ChainTransaction).where(ChainTransaction.op_key == op_key))
        assert write is not None and write.status == "succeeded"
        attempts = list(
            await s.scalars(select(ChainTxAttempt).where(ChainTxAttempt.chain_tx_id == write.id))
        )
    assert len(attempts) == 1
    assert await deps.gateway.custody_balance(dst, "MCC") == 3 * UNIT
    assert await books(deps, src) == (2 * UNIT, 0, 0)
    # Settling again is a no-op that reports the outcome.
    again = await settler(deps).settle(ids[0])
    assert again.status == "completed" and again.signature == write.signature


async def test_a_slow_settle_reports_the_recorded_status_and_the_settlement_goes_on(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    """Issue 43: TransferWorkflow has no status timer; the settle step itself answers a
    transfer still settling after ``report_after_seconds`` with its recorded status, and the
    settlement goes on: the next call joins it, and the transfer is booked once."""
    from temporalio.testing import ActivityEnvironment

    from activities.engine import EngineActivities, TransferRef

    pid = api.project.project_id
    sender = await funded_user(world, deps, pid, 2 * UNIT)
    [tid] = await accept(deps, pid, [(sender, (await world.user()).uid, UNIT // 4)])
    activities = EngineActivities(deps)
    activities.settler = Settler(deps.sessions, deps.gateway, linger=1.5)  # slow to claim
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, scheduled_time=datetime.now(UTC))

    early = await env.run(activities.transfer_settle, TransferRef(tid, report_after_seconds=0.2))
    assert (early.status, early.settling) == ("pending", True)
    env.info = dataclasses.replace(env.info, scheduled_time=datetime.now(UTC))
    final = await env.run(activities.transfer_settle, TransferRef(tid, report_after_seconds=30))
    assert (final.status, final.settling) == ("completed", False)
    async with deps.sessions() as s:
        states = list(
            await s.scalars(select(TransferState.status).where(TransferState.transfer_id == tid))
        )
    assert states == ["pending", "pending_onchain", "completed"]
    assert await books(deps, sender) == (2 * UNIT - UNIT // 4, 0, 0)  # debited once
