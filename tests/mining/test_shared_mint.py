"""Single submissions that arrive together share one ``mint_to`` transaction, yet each keeps
its own status, history, event and ledger credit, exactly once."""

from __future__ import annotations

import asyncio
import uuid
from decimal import Decimal

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from api.routes import mining as mining_routes
from core.config import Settings
from db.models import Event
from db.models.chain import ChainTransaction
from db.models.ledger import LedgerEntry
from db.models.mining import MiningSubmission
from ledger.service import Ledger
from mining import settle
from mining.minter import SharedMinter
from mining.verify import ProofWindow
from tests.factories import World
from tests.mining.test_mining import activity, setup, submit, wait_status
from workflows.mining import MiningSubmissionWorkflow, submission_input


async def assert_rewarded_once(s: AsyncSession, ids: list[str]) -> None:
    """One ledger credit and one ``reward_confirmed`` event for each submission."""
    for i in ids:
        credits = select(func.count()).where(LedgerEntry.reference == f"mining:{i}")
        assert await s.scalar(credits) == 1, i
        events = select(func.count()).where(Event.id == f"evt_{i}_reward_confirmed")
        assert await s.scalar(events) == 1, i


async def test_single_submissions_arriving_together_share_a_mint_transaction(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A wide window, so that the arrivals meet however loaded the machine is.
    monkeypatch.setattr(SharedMinter, "linger", 1.0)
    creds, uid = await setup(client, world)
    bodies = [activity(uid, creds.secret, data={"trade_count": n}) for n in range(1, 6)]
    answers = await asyncio.gather(*(submit(client, creds, b) for b in bodies))
    assert all(a.status_code == 202 for a in answers), [a.text for a in answers]
    ids = [a.json()["data"]["id"] for a in answers]
    finals = [await wait_status(client, creds, i, "confirmed", "failed", "rejected") for i in ids]
    assert [f["status"] for f in finals] == ["confirmed"] * len(ids), finals
    signatures = {f["tx_signature"] for f in finals}
    assert len(signatures) < len(ids), "no transaction was shared"
    for f in finals:
        assert [h["status"] for h in f["history"]] == [
            "pending_verification", "verified", "pending_onchain", "confirmed",
        ]  # fmt: skip

    async with session_maker() as s:
        await assert_rewarded_once(s, ids)
        balance = await Ledger(s).balances(uid, "MCD")
    assert balance.balance == sum(int(Decimal(f["mcd_amount"]) * 10**9) for f in finals)


async def test_a_claimed_but_unsent_shared_write_is_resumed_and_confirmed_once(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    worker_settings: Settings,
    temporal_env: WorkflowEnvironment,
    session_maker: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The minter named the write on the row, then its process died before signing: the
    workflow's retry (here: its start, after the fact) rebuilds that very write and confirms
    once."""
    monkeypatch.setattr(mining_routes, "_start_soon", lambda *args: None)
    creds, uid = await setup(client, world)
    r = await submit(client, creds, activity(uid, creds.secret))
    assert r.status_code == 202, r.text
    submission_id = r.json()["data"]["id"]
    op_key = f"mining-shared:test-{uuid.uuid4().hex}"
    keys = {worker_settings.master_key_id: worker_settings.master_key}
    async with session_maker() as s:
        await settle.verify(
            s, [submission_id], keys=keys, decimals=9, window=ProofWindow.of(worker_settings)
        )
        [claimed] = await settle.claim(s, [submission_id], op_key)
        await s.commit()
    assert claimed.activity_id == submission_id

    async with session_maker() as s:
        row = await s.get(MiningSubmission, submission_id)
        assert row is not None and row.status == "verified" and row.op_key == op_key
    await temporal_env.client.start_workflow(
        MiningSubmissionWorkflow.run,
        submission_input(row.workflow_id, [submission_id]),
        id=row.workflow_id,
        task_queue=worker,
    )
    final = await wait_status(client, creds, submission_id, "confirmed", "failed")
    assert final["status"] == "confirmed", final
    async with session_maker() as s:
        write = await s.scalar(select(ChainTransaction).where(ChainTransaction.op_key == op_key))
        assert write is not None and write.signature == final["tx_signature"]
        credits = select(func.count()).where(LedgerEntry.reference == f"mining:{submission_id}")
        assert await s.scalar(credits) == 1


async def test_a_group_with_bad_and_replayed_proofs_settles_each_submission_on_its_own(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The minter verifies the submissions that arrive together in one transaction: a bad
    proof and a second use of one proof are rejected, the others are minted together and
    confirmed, each with its own status and credit."""
    monkeypatch.setattr(SharedMinter, "linger", 1.0)
    creds, uid = await setup(client, world)
    good = [activity(uid, creds.secret, data={"trade_count": n}) for n in range(1, 4)]
    replayed = {**good[0], "idempotency_key": uuid.uuid4().hex}  # the same proof again
    forged = activity(uid, "sk_not_the_project_secret")
    answers = await asyncio.gather(*(submit(client, creds, b) for b in [*good, replayed, forged]))
    assert all(a.status_code == 202 for a in answers), [a.text for a in answers]
    ids = [a.json()["data"]["id"] for a in answers]
    finals = [await wait_status(client, creds, i, "confirmed", "failed", "rejected") for i in ids]
    statuses = [f["status"] for f in finals]
    # Of two submissions with one proof, the first in id order wins.
    first, second = sorted([ids[0], ids[3]])
    winner = {ids[0]: statuses[0], ids[3]: statuses[3]}
    assert winner[first] == "confirmed" and winner[second] == "rejected", finals
    rejected = finals[ids.index(second)]
    assert rejected["reason"].startswith("proof_replayed"), rejected
    assert statuses[1:3] == ["confirmed", "confirmed"] and statuses[4] == "rejected", finals
    assert finals[4]["reason"].startswith("invalid_signature"), finals[4]
    confirmed = [i for i, f in zip(ids, finals, strict=True) if f["status"] == "confirmed"]
    assert len({f["tx_signature"] for f in finals if f["status"] == "confirmed"}) < len(confirmed)
    async with session_maker() as s:
        await assert_rewarded_once(s, confirmed)
