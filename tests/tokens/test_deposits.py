"""Deposits end to end on the local chain: an outside wallet sends tokens to a custody account;
the watcher credits the ledger once per signature, emits funds.deposited, lists it."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from solders.keypair import Keypair
from spl.token.constants import TOKEN_PROGRAM_ID
from spl.token.instructions import transfer_checked
from spl.token.models import TransferCheckedParams
from sqlalchemy import func, select, update
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps
from activities.engine import ReconcileRequest
from chain.errors import ChainRejected
from db.models.events import Event
from db.models.ledger import LedgerEntry
from db.models.tokens import Deposit, DepositCursor
from devchain.outside import OutsideWallet
from ledger.service import Ledger
from tests.factories import World
from tests.tokens.conftest import UNIT, bearer
from tokens.deposit_watch import DepositScanner
from tokens.deposits import register
from workflows.tokens import DepositScanInput, DepositScanWorkflow


async def _watched_user(world: World, deps: WorkerDeps, scanner: DepositScanner) -> str:
    user = await world.user()
    async with deps.sessions() as session:
        for currency in ("MCC", "MCD"):
            await register(session, deps.gateway, user.uid, currency)
        await session.commit()
    await scanner.scan()  # creates the accounts
    return user.uid


async def _balance(deps: WorkerDeps, uid: str, currency: str = "MCC") -> int:
    async with deps.sessions() as session:
        return (await Ledger(session).balances(uid, currency)).balance


async def test_outside_transfer_is_credited_once_and_listed(
    world: World,
    deps: WorkerDeps,
    scanner: DepositScanner,
    outsider: OutsideWallet,
    client: httpx.AsyncClient,
) -> None:
    uid = await _watched_user(world, deps, scanner)
    project = await world.project()
    await world.consent(uid, project.project_id)
    custody = deps.gateway.custody_address(uid, "MCC")
    mint = deps.gateway.keys.mint_for("MCC")
    sig = await outsider.send_tokens(mint, custody, 250 * UNIT, 9)

    # The watcher runs twice at once and once more: one credit, one row, one event.
    first = await asyncio.gather(scanner.scan(), scanner.scan())
    await scanner.scan()
    assert sum(s.credited for s in first) == 1
    assert await _balance(deps, uid) == 250 * UNIT
    assert await deps.gateway.custody_balance(uid, "MCC", "finalized") == 250 * UNIT
    async with deps.sessions() as session:
        rows = (await session.scalars(select(Deposit).where(Deposit.signature == sig))).all()
        assert [(r.outcome, r.amount, r.sender) for r in rows] == [
            ("credited", 250 * UNIT, str(outsider.address))
        ]
        events = (
            await session.scalars(
                select(Event).where(
                    Event.type == "funds.deposited", Event.project_id == project.project_id
                )
            )
        ).all()
        assert len(events) == 1
        assert events[0].data["tx_signature"] == sig
        assert events[0].data["amount"] == "250"

        # A worker killed after the credit but before its cursor moved: the next pass reads
        # the block again and the unique constraint keeps it to one credit.
        slot = rows[0].slot
        await session.execute(update(DepositCursor).values(slot=slot - 1))
        await session.commit()
    again = await scanner.scan()
    assert again.credited == 0 and again.blocks >= 1 and again.cursor >= slot
    assert await _balance(deps, uid) == 250 * UNIT

    token = await world.token(uid, "mcc:read")
    page = await client.get("/v1/mcc/transactions", headers=bearer(token))
    assert page.status_code == 200, page.text
    body = page.json()
    assert body["meta"]["total"] == 1
    item = body["data"][0]["attributes"]
    assert item["type"] == "deposit" and item["direction"] == "in"
    assert item["amount"] == "250" and item["signature"] == sig
    assert item["counterparty"] == str(outsider.address) and item["status"] == "completed"
    balance = await client.get("/v1/mcc/balance", headers=bearer(token))
    assert balance.json()["data"]["attributes"]["total_balance"] == "250"
    assert balance.json()["data"]["attributes"]["deposit_address"] == str(custody)


async def test_failed_and_wrong_mint_transfers_are_not_credited(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    uid = await _watched_user(world, deps, scanner)
    custody = deps.gateway.custody_address(uid, "MCC")
    mcd = deps.gateway.keys.mint_for("MCD")
    # MCD sent into the MCC custody account: the token program refuses (mint mismatch) and the
    # transaction lands failed (it paid its fee): recorded as ignored_failed, nothing credited.
    with pytest.raises(ChainRejected):
        await outsider.send_tokens(mcd, custody, 5 * UNIT, 9)
    summary = await scanner.scan()
    assert summary.credited == 0 and summary.ignored == 1
    async with deps.sessions() as session:
        outcomes = (
            await session.scalars(select(Deposit.outcome).where(Deposit.user_uid == uid))
        ).all()
    assert outcomes == ["ignored_failed"]
    assert await _balance(deps, uid) == 0


async def test_outflow_not_made_by_the_gateway_is_reported_as_drift(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    uid = await _watched_user(world, deps, scanner)
    custody = deps.gateway.custody_address(uid, "MCC")
    mint = deps.gateway.keys.mint_for("MCC")
    await outsider.send_tokens(mint, custody, 40 * UNIT, 9)
    await scanner.scan()
    # Someone holding the custody key moves tokens out behind the gateway's back.
    thief = OutsideWallet(Keypair(), outsider.client)
    await thief.ensure_sol(deps.gateway)
    authority = deps.gateway.keys.custody_authority
    ix = transfer_checked(
        TransferCheckedParams(
            program_id=TOKEN_PROGRAM_ID, source=custody, mint=mint,
            dest=outsider.token_account(mint), owner=authority.pubkey(), amount=15 * UNIT,
            decimals=9,
        )
    )  # fmt: skip
    await thief.send_instructions([ix], signers=(authority,))
    summary = await scanner.scan()
    assert summary.outflows == 1 and summary.credited == 0
    assert await _balance(deps, uid) == 40 * UNIT  # nothing booked
    from activities.engine import EngineActivities

    report = await EngineActivities(deps).reconcile(ReconcileRequest(run_id=uuid.uuid4().hex))
    mine = [d for d in report.drifts if d["user_uid"] == uid]
    assert mine and mine[0]["drift"] == -15 * UNIT


async def test_reconciliation_counts_deposits_and_the_watcher_workflow_credits(
    world: World,
    deps: WorkerDeps,
    scanner: DepositScanner,
    outsider: OutsideWallet,
    temporal_env: WorkflowEnvironment,
    queue: str,
    worker: str,
) -> None:
    uid = await _watched_user(world, deps, scanner)
    custody = deps.gateway.custody_address(uid, "MCD")
    await outsider.send_tokens(deps.gateway.keys.mint_for("MCD"), custody, 7 * UNIT, 9)
    # Not yet seen by the watcher: reconciliation credits it first, so it is no drift.
    from activities.engine import EngineActivities

    report = await EngineActivities(deps).reconcile(ReconcileRequest(run_id=uuid.uuid4().hex))
    assert not [d for d in report.drifts if d["user_uid"] == uid]
    assert await _balance(deps, uid, "MCD") == 7 * UNIT

    await outsider.send_tokens(deps.gateway.keys.mint_for("MCD"), custody, 3 * UNIT, 9)
    result = await temporal_env.client.execute_workflow(
        DepositScanWorkflow.run,
        DepositScanInput(note="test"),
        id=f"deposit-scan-{uuid.uuid4().hex[:8]}",
        task_queue=queue,
    )
    assert result.credited >= 1
    assert await _balance(deps, uid, "MCD") == 10 * UNIT
    async with deps.sessions() as session:
        credits = await session.scalar(
            select(func.count()).where(
                LedgerEntry.user_uid == uid, LedgerEntry.reference.like("deposit:%")
            )
        )
    assert credits == 2


async def test_a_scan_waits_for_its_own_processs_follower_outside_the_database(
    deps: WorkerDeps, scanner: DepositScanner
) -> None:
    """Reconciliation's scan and the follower share the worker's scanner: while it follows
    (holding the pass lock for its whole run), a scan waits for it in the process, not in the
    lock's statement, where psycopg's wait woke the loop ten times a second for up to a
    follower run (issue 43). The scan still runs, after the follower."""
    from sqlalchemy import text

    await scanner.scan()  # the cursor and the set
    following = asyncio.create_task(scanner.follow(3.0, poll=0.2))
    await asyncio.sleep(1.0)
    scanning = asyncio.create_task(scanner.scan(catch_up_seconds=0))
    await asyncio.sleep(0.5)
    async with deps.sessions() as session:
        waiting = await session.scalar(
            text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            )
        )
    assert waiting == 0
    assert not scanning.done()
    await following
    summary = await scanning
    assert summary.cursor >= 0
