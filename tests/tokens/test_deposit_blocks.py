"""The deposit watcher walks blocks, not accounts: a version-0 deposit through a lookup table,
a deposit buried in a flood at its custody address, one made while the watcher was stopped,
and one the block walk never saw (found by the ``mccgw deposits-rescan`` repair command) are
each credited exactly once; an outflow through a lookup table is reported."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from typing import Any

import pytest
from solders.keypair import Keypair
from solders.system_program import TransferParams, transfer
from spl.token.instructions import transfer_checked
from spl.token.models import TransferCheckedParams
from sqlalchemy import func, select, update

from activities.deps import WorkerDeps
from activities.engine import EngineActivities, ReconcileRequest
from chain.errors import ChainRpcError
from chain.rpc import METHOD_NOT_FOUND
from chain.sent_here import SentHere
from db.models.ledger import LedgerEntry
from db.models.tokens import Deposit, DepositCursor
from devchain.outside import OutsideWallet
from ledger.service import Ledger
from tests.factories import World
from tests.tokens.conftest import UNIT
from tests.tokens.lookup_support import lookup_table, send_v0
from tokens.deposit_watch import DepositScanner
from tokens.deposits import ScanSummary, register

FLOOD = 5_200  # more than the old per-account walk examined in a pass (5,000)


async def _watched(world: World, deps: WorkerDeps, scanner: DepositScanner, currency: str) -> str:
    uid = (await world.user()).uid
    async with deps.sessions() as session:
        await register(session, deps.gateway, uid, currency)
        await session.commit()
    await scanner.scan()  # creates the account
    return uid


async def _credits(deps: WorkerDeps, uid: str, currency: str) -> tuple[int, int]:
    """(ledger balance, number of deposit credits) of the user."""
    async with deps.sessions() as session:
        balance = (await Ledger(session).balances(uid, currency)).balance
        count = await session.scalar(
            select(func.count()).where(
                LedgerEntry.user_uid == uid,
                LedgerEntry.currency == currency,
                LedgerEntry.reference.like("deposit:%"),
            )
        )
    return balance, int(count or 0)


async def test_a_deposit_in_a_flood_is_credited_once(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    uid = await _watched(world, deps, scanner, "MCC")
    custody = deps.gateway.custody_address(uid, "MCC")
    sig = await outsider.deposit(deps.gateway, "MCC", custody, 3 * UNIT)
    # Then a flood at the same address: one-lamport-ish transfers anyone can send for fees.
    spammer = OutsideWallet(Keypair(), outsider.client)
    await spammer.ensure_sol(deps.gateway, 10**9)
    noise = [
        [transfer(TransferParams(from_pubkey=spammer.address, to_pubkey=custody, lamports=n))]
        for n in range(1, FLOOD + 1)
    ]
    sent = await spammer.send_many(noise, deps.settings.solana_rpc_url)
    await spammer.wait_finalized(sent[-1])

    summary = await scanner.scan()
    assert summary.credited == 1 and summary.deposits[0]["tx_signature"] == sig
    assert await _credits(deps, uid, "MCC") == (3 * UNIT, 1)
    assert (await scanner.scan()).credited == 0
    assert await _credits(deps, uid, "MCC") == (3 * UNIT, 1)


async def test_a_deposit_to_an_unwatched_account_is_credited_once_it_is_watched(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    """Tokens sent to a custody account nobody watches yet (its user has no ledger account and
    was never shown it; the address is derivable) are not lost: the first balance read
    registers the account and the watcher's catch-up walks its history (docs/reliability.md)."""
    uid = (await world.user()).uid
    await deps.gateway.ensure_custody_account(uid, "MCC")
    custody = deps.gateway.custody_address(uid, "MCC")
    sig = await outsider.deposit(deps.gateway, "MCC", custody, 4 * UNIT)
    await scanner.scan()
    assert await _credits(deps, uid, "MCC") == (0, 0)  # not watched: nothing booked yet
    async with deps.sessions() as session:  # what GET /v1/mcc/balance does first
        await register(session, deps.gateway, uid, "MCC")
        await session.commit()
    summary = await scanner.scan()
    assert [d["tx_signature"] for d in summary.deposits if d["user_uid"] == uid] == [sig]
    assert await _credits(deps, uid, "MCC") == (4 * UNIT, 1)
    assert (await scanner.scan()).credited == 0


async def test_a_poll_lists_the_new_blocks_in_one_request_and_a_node_without_it_is_walked_too(
    world: World,
    deps: WorkerDeps,
    scanner: DepositScanner,
    outsider: OutsideWallet,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The walk's poll is one getBlocksWithLimit at finalized (it says both how far the
    finalized chain reaches and which slots have a block; it was getSlot then getBlocks, and
    getSlot again after the blocks), then the blocks, and nothing more while no watched account
    moves; a provider without the method is walked
    with getSlot and getBlocks, and a deposit is credited either way."""
    uid = await _watched(world, deps, scanner, "MCC")
    custody = deps.gateway.custody_address(uid, "MCC")
    asked: list[tuple[str, list[Any]]] = []
    call = scanner.blocks._call

    async def counted(method: str, params: list[Any]) -> Any:
        asked.append((method, params))
        return await call(method, params)

    monkeypatch.setattr(scanner.blocks, "_call", counted)
    cursor = (await scanner.scan()).cursor
    await asyncio.sleep(0.2)  # a few 20 ms slots finalize meanwhile
    asked.clear()
    scanner._matched_at = 0.0  # no watched account moved for a while: the idle follower's poll
    after = await scanner._walk(cursor, ScanSummary())
    assert after > cursor
    assert asked == [("getBlocksWithLimit", [cursor + 1, 4096, {"commitment": "finalized"}])]

    async def without_it(method: str, params: list[Any]) -> Any:
        asked.append((method, params))
        if method == "getBlocksWithLimit":
            raise ChainRpcError("getBlocksWithLimit: Method not found", METHOD_NOT_FOUND)
        return await call(method, params)

    monkeypatch.setattr(scanner.blocks, "_call", without_it)
    sig = await outsider.deposit(deps.gateway, "MCC", custody, 6 * UNIT)
    asked.clear()
    summary = await scanner.scan()
    assert [d["tx_signature"] for d in summary.deposits] == [sig]
    assert (await scanner.scan()).credited == 0
    methods = [m for m, _ in asked]
    assert methods.count("getBlocksWithLimit") == 1  # asked once, then no more
    assert "getSlot" in methods and "getBlocks" in methods
    assert await _credits(deps, uid, "MCC") == (6 * UNIT, 1)


async def test_the_gateways_own_writes_are_left_unread_and_a_deposit_beside_them_is_credited(
    world: World,
    deps: WorkerDeps,
    scanner: DepositScanner,
    outsider: OutsideWallet,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A custody transfer this process sent (between two watched accounts, out of one and
    into the other) is the gateway's own: the walk leaves it unread (counted in ``own``), while
    an outsider's deposit of the same minutes is credited. A process that did not send it (its
    memory of sent signatures empty: another worker, or after a restart) reads it and leaves it
    out by the write records: neither walk makes a deposit of it or reports an outflow."""
    payer = await _watched(world, deps, scanner, "MCC")
    payee = await _watched(world, deps, scanner, "MCC")
    await outsider.deposit(deps.gateway, "MCC", deps.gateway.custody_address(payer, "MCC"), UNIT)
    cursor = (await scanner.scan()).cursor
    own = await deps.gateway.transfer(f"test-own:{uuid.uuid4()}", "MCC", payer, payee, UNIT // 4)
    assert own.signature in deps.gateway.sent_here
    payee_custody = deps.gateway.custody_address(payee, "MCC")
    sig = await outsider.deposit(deps.gateway, "MCC", payee_custody, 2 * UNIT)

    summary = await scanner.scan()
    assert summary.own >= 1
    assert [d["tx_signature"] for d in summary.deposits] == [sig]
    assert summary.outflows == 0

    monkeypatch.setattr(deps.gateway, "sent_here", SentHere())  # a process that sent nothing
    again = ScanSummary()
    await scanner._walk(cursor, again)  # the same blocks, read whole this time
    assert again.own == 0 and again.credited == 0 and again.outflows == 0
    async with deps.sessions() as session:
        rows = await session.scalar(select(func.count()).where(Deposit.signature == own.signature))
    assert rows == 0
    assert await _credits(deps, payee, "MCC") == (2 * UNIT, 1)


async def test_a_deposit_made_while_the_watcher_was_stopped(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    uid = await _watched(world, deps, scanner, "MCD")
    await scanner.aclose()  # the watcher stops
    custody = deps.gateway.custody_address(uid, "MCD")
    sig = await outsider.deposit(deps.gateway, "MCD", custody, 5 * UNIT)
    await asyncio.sleep(1.0)  # dozens of slots pass with nobody watching

    # A new process (a restarted worker) resumes at the committed cursor.
    restarted = DepositScanner(deps.sessions, deps.gateway)
    again = DepositScanner(deps.sessions, deps.gateway)
    try:
        first = await restarted.scan()
        assert [d["tx_signature"] for d in first.deposits if d["user_uid"] == uid] == [sig]
        assert (await again.scan()).credited == 0
    finally:
        await restarted.aclose()
        await again.aclose()
    assert await _credits(deps, uid, "MCD") == (5 * UNIT, 1)


async def test_the_rescan_command_books_what_the_block_walk_missed(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    uid = await _watched(world, deps, scanner, "MCC")
    custody = deps.gateway.custody_address(uid, "MCC")
    sig = await outsider.deposit(deps.gateway, "MCC", custody, 7 * UNIT)
    # The block walk never sees it: the cursor is moved past it by hand (as after restoring a
    # database from a backup older than the chain).
    finalized = await scanner.blocks.finalized_slot()
    async with deps.sessions() as session:
        await session.execute(update(DepositCursor).values(slot=finalized))
        await session.commit()
    assert (await scanner.scan()).credited == 0
    assert await _credits(deps, uid, "MCC") == (0, 0)

    settings = deps.settings
    env = {
        **os.environ,
        "ENVIRONMENT": "test",
        "DATABASE_URL": settings.database_url,
        "SOLANA_RPC_URL": settings.solana_rpc_url,
        "CHAIN_KEYS_DIR": str(settings.chain_keys_dir),
        "MCCGW_DEV_DIR": "/nonexistent",
    }
    command = [sys.executable, "-m", "mccgw.cli", "deposits-rescan", "--user", uid]
    command += ["--currency", "MCC", "--from-slot", "0", "--to-slot", str(finalized)]
    for expected in ("1 credited", "0 credited"):  # the second run books nothing more
        done = await asyncio.to_thread(
            subprocess.run, command, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert expected in done.stdout, done.stdout
    assert await _credits(deps, uid, "MCC") == (7 * UNIT, 1)
    async with deps.sessions() as session:
        row = await session.scalar(select(Deposit).where(Deposit.signature == sig))
    assert row is not None and (row.outcome, row.amount) == ("credited", 7 * UNIT)


async def test_a_v0_deposit_and_an_outflow_through_a_lookup_table(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    """What modern wallets send: the custody account named only through a lookup table. The
    deposit is credited once and is no drift; an outflow the same way is reported."""
    uid = await _watched(world, deps, scanner, "MCC")
    gateway = deps.gateway
    custody = gateway.custody_address(uid, "MCC")
    mint = gateway.keys.mint_for("MCC")
    table = await lookup_table(outsider, [custody])
    ix = outsider.transfer_instruction(mint, custody, 3 * UNIT, 9)
    sig = await send_v0(outsider, [ix], table, [custody])

    summary = await scanner.scan()
    assert [d["tx_signature"] for d in summary.deposits if d["user_uid"] == uid] == [sig]
    assert (await scanner.scan()).credited == 0
    assert await _credits(deps, uid, "MCC") == (3 * UNIT, 1)
    report = await EngineActivities(deps).reconcile(ReconcileRequest(run_id=uuid.uuid4().hex))
    assert not [d for d in report.drifts if d["user_uid"] == uid]

    # Someone holding the custody key moves 1 MCC out, the custody account again only in the
    # lookup table: reported (an unexplained outflow, then drift), nothing booked.
    thief = OutsideWallet(Keypair(), outsider.client)
    await thief.ensure_sol(gateway)
    authority = gateway.keys.custody_authority
    out = transfer_checked(
        TransferCheckedParams(
            program_id=gateway.keys.token_program("MCC"), source=custody, mint=mint,
            dest=outsider.token_account(mint), owner=authority.pubkey(), amount=UNIT, decimals=9,
        )
    )  # fmt: skip
    theirs = await lookup_table(thief, [custody])
    await send_v0(thief, [out], theirs, [custody], signers=(authority,))
    summary = await scanner.scan()
    assert summary.outflows == 1 and summary.credited == 0
    assert await _credits(deps, uid, "MCC") == (3 * UNIT, 1)
    report = await EngineActivities(deps).reconcile(ReconcileRequest(run_id=uuid.uuid4().hex))
    mine = [d for d in report.drifts if d["user_uid"] == uid]
    assert mine and mine[0]["drift"] == -UNIT
