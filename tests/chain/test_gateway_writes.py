"""The gateway's exactly-once write protocol against the real node and database: crashes between
persist, send and confirmation, expiry and re-signing, terminal failures, simulation."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.custody import CustodyTransfer
from chain.errors import InsufficientChainFunds, StillLandable, UnknownChainWrite, WriteLanded
from chain.gateway import ChainGateway
from tests.chain.gateway_support import (  # noqa: F401  (fixtures)
    UNIT,
    GatewayFactory,
    attempt_rows,
    chain_status,
    funded,
    gw_fixture,
    make_gateway_fixture,
    op,
    row,
    wait_until_expired,
)

# ------------------------------------------------------------- exactly once


async def test_crash_between_persist_and_send(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    alice = await funded(gw, "MCC", 50 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    ix = [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, 20 * UNIT))]

    # "Crash": the record is committed, the process dies before sending.
    prepared = await gw.prepare(key, ix, kind="transfer")
    assert prepared.status == "signed" and prepared.send_count == 0
    assert (await row(session_maker, key)).status == "signed"
    assert await chain_status(gw, prepared.signature) is None

    # Several fresh processes retry at once; exactly one transfer lands.
    others = [await make_gateway() for _ in range(3)]
    await asyncio.gather(*(g.submit(key, ix, kind="transfer") for g in others))
    finals = await asyncio.gather(*(g.await_final(key, 30) for g in others))
    assert {f.status for f in finals} == {"succeeded"}
    assert {f.signature for f in finals} == {prepared.signature}  # the SAME bytes were sent
    assert all(f.attempt == 1 for f in finals)

    assert await gw.custody_balance(alice, "MCC") == 30 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 20 * UNIT
    attempts = await attempt_rows(session_maker, key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "succeeded")]


async def test_crash_between_send_and_confirmation(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    alice = await funded(gw, "MCC", 10 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    transfers = [CustodyTransfer("MCC", alice, bob, 4 * UNIT)]

    first = await make_gateway()
    sent = await first.submit_transfers(key, transfers)
    assert sent.status == "sent" and sent.send_count == 1
    await first.rpc.aclose()  # the process is gone before any confirmation

    second = await make_gateway()
    retried = await second.submit_transfers(key, transfers)  # a retry of the activity
    assert retried.signature == sent.signature
    final = await second.await_final(key, 30)
    assert final.succeeded and final.attempt == 1 and final.previous_signatures == ()

    assert await gw.custody_balance(alice, "MCC") == 6 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 4 * UNIT
    stored = await row(session_maker, key)
    assert (stored.status, stored.attempt, stored.signature) == ("succeeded", 1, sent.signature)


async def test_a_new_write_recorded_meanwhile_by_another_process_is_sent_once(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """``new``: the claimer signs and records its write without reading first (pass four:
    one statement less per write); a process that resumed the write meanwhile (its record
    already there, already sent) wins the INSERT, and the claimer goes on with that record:
    the same signature, one transfer on chain."""
    alice = await funded(gw, "MCC", 10 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    transfers = [CustodyTransfer("MCC", alice, bob, 3 * UNIT)]

    resumer = await make_gateway()
    sent = await resumer.submit_transfers(key, transfers)
    assert sent.status == "sent" and sent.send_count == 1
    claimer = await gw.submit_transfers(key, transfers, new=True)
    assert claimer.signature == sent.signature and claimer.attempt == 1
    final = await gw.await_final(key, 30)
    assert final.succeeded and final.signature == sent.signature
    assert await gw.custody_balance(alice, "MCC") == 7 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 3 * UNIT
    attempts = await attempt_rows(session_maker, key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "succeeded")]

    # And a write really new is recorded and sent by that one call.
    fresh = await gw.submit_transfers(op(), transfers, new=True)
    assert fresh.status == "sent" and fresh.send_count == 1
    assert (await gw.await_final(fresh.op_key, 30)).succeeded


async def test_expired_blockhash_is_resigned_exactly_once(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    alice = await funded(gw, "MCC", 9 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    transfers = [CustodyTransfer("MCC", alice, bob, 2 * UNIT)]
    ix = [gw.transfer_instruction(t) for t in transfers]

    prepared = await gw.prepare(key, ix, kind="transfer")  # signed, persisted, never sent
    await wait_until_expired(gw, prepared.last_valid_block_height)

    retry = await make_gateway()
    resubmitted, concurrent = await asyncio.gather(
        retry.submit(key, ix, kind="transfer"), (await make_gateway()).advance(key)
    )
    assert resubmitted.attempt == 2 and concurrent.attempt == 2  # re-signed once, not twice
    assert resubmitted.signature == concurrent.signature != prepared.signature
    assert resubmitted.previous_signatures == (prepared.signature,)
    final = await retry.await_final(key, 30)
    assert final.succeeded and final.attempt == 2

    assert await chain_status(gw, prepared.signature) is None  # the first never landed
    assert await gw.custody_balance(alice, "MCC") == 7 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 2 * UNIT
    attempts = await attempt_rows(session_maker, key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "expired"), (2, "succeeded")]
    assert attempts[0].signature == prepared.signature


async def test_failed_on_chain_is_terminal(
    make_gateway: GatewayFactory, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    # Without simulation the doomed transfer is sent and lands with an error.
    gw = await make_gateway(simulate=False)
    alice = await funded(gw, "MCC", 5 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    transfers = [CustodyTransfer("MCC", alice, bob, 6 * UNIT)]

    sent = await gw.submit_transfers(key, transfers)
    assert sent.send_count == 1
    final = await gw.await_final(key, 30)
    assert final.status == "failed"
    assert final.err == {"InstructionError": [0, {"Custom": 1}]}  # SPL InsufficientFunds
    assert final.insufficient_funds
    with pytest.raises(InsufficientChainFunds):
        final.raise_for_failure()
    landed = await chain_status(gw, final.signature)
    assert landed is not None and landed.err is not None

    # Retries never re-send nor re-sign it.
    again = await (await make_gateway()).submit_transfers(key, transfers)
    assert (again.status, again.attempt, again.send_count) == ("failed", 1, 1)
    stored = await row(session_maker, key)
    assert (stored.status, stored.attempt, stored.send_count) == ("failed", 1, 1)
    assert stored.err == final.err
    assert await gw.custody_balance(alice, "MCC") == 5 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 0


async def test_simulation_rejects_without_sending(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    alice = await funded(gw, "MCC", 1 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    write = await gw.submit_transfers(key, [CustodyTransfer("MCC", alice, bob, 2 * UNIT)])
    assert write.status == "failed" and write.send_count == 0 and write.insufficient_funds
    assert await chain_status(gw, write.signature) is None  # never broadcast
    assert (await row(session_maker, key)).status == "failed"
    assert (await gw.await_final(key, 5)).status == "failed"
    assert await gw.custody_balance(alice, "MCC") == 1 * UNIT


# ------------------------------------------------------------- abandon (operator cancels)


def one_slot(gw: ChainGateway, monkeypatch: pytest.MonkeyPatch, reads: int = 2) -> None:
    """The node answers its first ``reads`` blockhash reads with the first one's blockhash, as
    when they all come within one slot (400 ms) or from a provider's lagging node."""
    real = gw.rpc.call
    first: list[Any] = []
    left = [reads]

    async def call(method: str, params: Sequence[Any] = (), **kw: Any) -> Any:
        if method != "getLatestBlockhash" or left[0] == 0:
            return await real(method, params, **kw)
        left[0] -= 1
        if not first:
            first.append(await real(method, params, **kw))
        return first[0]

    monkeypatch.setattr(gw.rpc, "call", call)


async def test_two_writes_of_the_same_instructions_in_one_slot_both_land(
    gw: ChainGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two payments of the same amount between the same custody accounts, signed on one
    blockhash, would be one transaction with one signature: it lands once, for both. The second
    is signed again on a newer blockhash, and each write moves its amount."""
    alice = await funded(gw, "MCC", 3 * UNIT)
    bob = await funded(gw, "MCC", 0)
    ix = [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, UNIT))]
    one_slot(gw, monkeypatch)
    keys = [op(), op()]
    sent = [await gw.submit(key, ix, kind="transfer") for key in keys]
    assert sent[0].signature != sent[1].signature
    finals = [await gw.await_final(key, 30) for key in keys]
    assert [f.status for f in finals] == ["succeeded", "succeeded"]
    assert await gw.custody_balance(alice, "MCC") == UNIT
    assert await gw.custody_balance(bob, "MCC") == 2 * UNIT


async def test_two_expired_writes_of_the_same_instructions_resigned_in_one_slot_both_land(
    gw: ChainGateway,
    monkeypatch: pytest.MonkeyPatch,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """The same when two such writes expired unsent and are re-signed in one slot: the second
    re-signs on a newer blockhash instead of failing on the first's signature."""
    alice = await funded(gw, "MCC", 3 * UNIT)
    bob = await funded(gw, "MCC", 0)
    ix = [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, UNIT))]
    keys = [op(), op()]
    prepared = [await gw.prepare(key, ix, kind="transfer") for key in keys]  # never sent
    await wait_until_expired(gw, max(p.last_valid_block_height for p in prepared))
    one_slot(gw, monkeypatch)
    advanced = [await gw.advance(key) for key in keys]
    assert [a.attempt for a in advanced] == [2, 2]
    assert advanced[0].signature != advanced[1].signature
    finals = [await gw.await_final(key, 30) for key in keys]
    assert [f.status for f in finals] == ["succeeded", "succeeded"]
    assert await gw.custody_balance(bob, "MCC") == 2 * UNIT
    for key in keys:
        assert [a.status for a in await attempt_rows(session_maker, key)] == [
            "expired",
            "succeeded",
        ]


async def test_abandon_only_once_no_signature_can_land(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """The rule "can this write still land?" is the gateway's: refused while the blockhash is
    valid, refused once a signature landed, and once provably dead closed as failed in the
    caller's transaction, after which no process re-signs it."""
    alice = await funded(gw, "MCC", 3 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key, landed_key = op(), op()
    ix = [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, UNIT))]
    prepared = await gw.prepare(key, ix, kind="transfer")  # signed, persisted, never sent

    async with session_maker() as session:
        with pytest.raises(UnknownChainWrite):
            await gw.abandon(session, op(), "no such write")
        with pytest.raises(StillLandable) as still:
            await gw.abandon(session, key, "too early")
    assert still.value.last_valid == prepared.last_valid_block_height
    assert still.value.height <= prepared.last_valid_block_height
    assert (await row(session_maker, key)).status == "signed"

    await gw.submit(landed_key, [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, UNIT))])
    await gw.await_final(landed_key, 30)
    async with session_maker() as session:
        with pytest.raises(WriteLanded):
            await gw.abandon(session, landed_key, "too late")

    await wait_until_expired(gw, prepared.last_valid_block_height)
    async with session_maker() as session:
        abandoned = await gw.abandon(session, key, "operator: changed mind")
        await session.rollback()  # the caller's transaction decides: nothing is kept
    assert abandoned.status == "failed"
    assert (await row(session_maker, key)).status == "signed"
    async with session_maker() as session:
        await gw.abandon(session, key, "operator: changed mind")
        await session.commit()
    stored = await row(session_maker, key)
    assert (stored.status, stored.err) == (
        "failed",
        {"operator_cancelled": "operator: changed mind"},
    )
    assert [a.status for a in await attempt_rows(session_maker, key)] == ["expired"]
    # Closed for good: a fresh process neither re-signs nor sends it, and abandoning it again
    # returns it as it is.
    again = await (await make_gateway()).submit(key, ix, kind="transfer")
    assert (again.status, again.attempt, again.send_count) == ("failed", 1, 0)
    async with session_maker() as session:
        assert (await gw.abandon(session, key, "twice")).status == "failed"
    assert await chain_status(gw, prepared.signature) is None
    assert await gw.custody_balance(alice, "MCC") == 2 * UNIT  # only the landed write moved
