"""A worker killed in the middle of a shared ``mint_to`` (issue 18): several single submissions
share one write; the worker dies after the write is recorded (signed, maybe sent) and before it
is confirmed; a fresh worker finishes. Every submission is confirmed once, credited once, and
the user holds on chain exactly the sum of the rewards."""

from __future__ import annotations

import asyncio
import signal
import uuid
from decimal import Decimal

import httpx
import pytest
from fastapi import FastAPI
from solana.rpc.async_api import AsyncClient
from solana.rpc.core import RPCException
from solders.signature import Signature
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from activities.deps import worker_deps
from chain.custody import CustodyMint
from core.config import Settings
from db.models.chain import ChainTransaction, ChainTxAttempt
from db.models.mining import MiningSubmission
from tests.factories import World
from tests.mining.test_mining import activity, setup, status_of, submit
from tests.mining.test_shared_mint import assert_rewarded_once
from tests.stack import new_queue, running_worker, worker_process
from tests.webhooks.support import eventually

# The worker as `python -m worker`, with a wide gathering window so that the submissions meet
# in one write however loaded the machine is (the product's window is 25 ms).
WORKER = (
    "import sys; from mining.minter import SharedMinter; SharedMinter.linger = 1.0; "
    "from worker import main; main(sys.argv[1:])"
)
SUBMISSIONS = 5
# The dead worker's activities miss their heartbeat for 10 s and are retried on the fresh
# worker (which resumes the write): well within this bound.
RESUMED_WITHIN = 120.0


async def _recorded_shared_write(
    sessions: async_sessionmaker[AsyncSession], ids: list[str]
) -> ChainTransaction | None:
    """The first shared write of these submissions the gateway has recorded (signed)."""
    async with sessions() as s:
        return await s.scalar(
            select(ChainTransaction)
            .join(MiningSubmission, MiningSubmission.op_key == ChainTransaction.op_key)
            .where(MiningSubmission.id.in_(ids))
            .limit(1)
        )


async def test_worker_killed_mid_shared_mint_confirms_each_submission_once(
    app: FastAPI,
    client: httpx.AsyncClient,
    world: World,
    stack_settings: Settings,
    temporal_env: WorkflowEnvironment,
    session_maker: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queue = new_queue("mint-crash")
    monkeypatch.setattr(app.state, "task_queue", queue, raising=False)
    async with worker_process(stack_settings, queue, "-c", WORKER) as proc:
        creds, uid = await setup(client, world)
        bodies = [activity(uid, creds.secret, data={"trade_count": n}) for n in range(SUBMISSIONS)]
        answers = await asyncio.gather(*(submit(client, creds, b) for b in bodies))
        assert all(a.status_code == 202 for a in answers), [a.text for a in answers]
        ids = [a.json()["data"]["id"] for a in answers]

        # Kill the worker the moment the shared write is recorded (signed, maybe sent): at
        # finalized commitment it is confirmed 31 slots later at the earliest.
        write = await eventually(lambda: _recorded_shared_write(session_maker, ids), 60, 0.005)
        proc.send_signal(signal.SIGKILL)  # a crash: no graceful shutdown, no cleanup
        await proc.wait()

    async with session_maker() as s:
        rows = list(await s.scalars(select(MiningSubmission).where(MiningSubmission.id.in_(ids))))
    members = [r.id for r in rows if r.op_key == write.op_key]
    assert len(members) >= 2, "the submissions did not share the write"
    assert all(r.status != "confirmed" for r in rows if r.id in members), "killed too late"

    # A fresh worker on the same queue finishes from the durable records.
    async with running_worker(temporal_env.client, stack_settings, queue) as deps:

        async def settled() -> list[dict[str, object]] | None:
            finals = [await status_of(client, creds, i) for i in ids]
            done = all(f["status"] in ("confirmed", "failed", "rejected") for f in finals)
            return finals if done else None

        finals = await eventually(settled, RESUMED_WITHIN, 0.5)
        custody = await deps.gateway.custody_balance(uid, "MCD")
        decimals = deps.gateway.token_decimals().mcd

    assert [f["status"] for f in finals] == ["confirmed"] * SUBMISSIONS, finals
    for f in finals:
        assert [h["status"] for h in f["history"]] == [
            "pending_verification", "verified", "pending_onchain", "confirmed",
        ]  # fmt: skip
    rewards = sum(int(Decimal(str(f["mcd_amount"])) * 10**decimals) for f in finals)
    assert custody == rewards  # no reward minted twice

    async with session_maker() as s:
        await assert_rewarded_once(s, ids)
        write = await s.get(ChainTransaction, write.id, populate_existing=True)
        assert write is not None and write.status == "succeeded"
        attempts = list(
            await s.scalars(
                select(ChainTxAttempt)
                .where(ChainTxAttempt.chain_tx_id == write.id)
                .order_by(ChainTxAttempt.attempt)
            )
        )
    # One signed transaction per blockhash; an earlier one only if it expired unlanded, and
    # only the last one landed (the chain is asked, not our records).
    assert len({a.blockhash for a in attempts}) == len(attempts)
    assert [a.status for a in attempts] == ["expired"] * (len(attempts) - 1) + ["succeeded"]
    shared = {f["tx_signature"] for i, f in zip(ids, finals, strict=True) if i in members}
    assert shared == {attempts[-1].signature}
    async with AsyncClient(stack_settings.solana_rpc_url) as rpc:
        found = await rpc.get_signature_statuses(
            [Signature.from_string(a.signature) for a in attempts], search_transaction_history=True
        )
    assert [s is not None for s in found.value] == [False] * (len(attempts) - 1) + [True]
    assert write.block_height is None or all(
        write.block_height > a.last_valid_block_height for a in attempts[:-1]
    )


async def test_a_recorded_unsent_mint_is_resent_as_is_or_resigned_only_once_expired(
    worker_settings: Settings, world: World
) -> None:
    """What a resume does with a write whose process died between recording and sending: the
    same bytes while its blockhash is valid; a new signature only once the finalized height is
    past its last valid height, when the first bytes can no longer land even if sent late."""
    async with worker_deps(worker_settings) as deps:
        gateway = deps.gateway
        uid = (await world.user()).uid
        await gateway.ensure_custody_account(uid, "MCD")
        mint = [gateway.mint_instruction(CustodyMint("MCD", uid, 7))]

        # Resumed in time: the recorded bytes are sent, nothing is signed again.
        valid = f"mining-shared:test-{uuid.uuid4().hex}"
        first = await gateway.prepare(valid, mint, kind="mint")
        final = await gateway.await_final(valid, timeout=30)
        assert (final.status, final.attempt, final.signature) == ("succeeded", 1, first.signature)

        # Resumed after expiry: one new attempt; the first bytes, sent late, are refused.
        late = f"mining-shared:test-{uuid.uuid4().hex}"
        first = await gateway.prepare(late, mint, kind="mint")

        async def expired() -> bool:
            return await gateway.block_height("finalized") > first.last_valid_block_height

        await eventually(expired, 30, 0.1)
        resumed = await gateway.advance(late)
        assert resumed.attempt == 2 and resumed.previous_signatures == (first.signature,)
        async with AsyncClient(worker_settings.solana_rpc_url) as rpc:
            tx_bytes = await _attempt_bytes(deps.sessions, first.signature)
            with pytest.raises(RPCException, match="Blockhash not found"):
                await rpc.send_raw_transaction(tx_bytes)
            final = await gateway.await_final(late, timeout=30)
            found = await rpc.get_signature_statuses(
                [Signature.from_string(s) for s in (first.signature, final.signature)],
                search_transaction_history=True,
            )
        balance = await gateway.custody_balance(uid, "MCD")
    assert final.status == "succeeded" and final.signature == resumed.signature
    assert [s is not None for s in found.value] == [False, True]
    assert balance == 14  # each write minted once


async def _attempt_bytes(sessions: async_sessionmaker[AsyncSession], signature: str) -> bytes:
    async with sessions() as s:
        tx_bytes = await s.scalar(
            select(ChainTxAttempt.tx_bytes).where(ChainTxAttempt.signature == signature)
        )
    assert tx_bytes is not None
    return tx_bytes
