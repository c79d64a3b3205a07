"""``WriteRecord``: every move of a chain write's row and its attempts, on the real database.

The chain is not needed here (the protocol that decides the moves is tested against the node in
``test_gateway_writes.py``): the signatures are made up, the statuses are what
getSignatureStatuses would answer."""

from __future__ import annotations

import uuid

import pytest
from solders.signature import Signature
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.answers import SignatureStatus
from chain.write_record import Signed, WriteRecord
from tests.chain.gateway_support import attempt_rows, row


def signed(last_valid: int = 100) -> Signed:
    return Signed(
        str(Signature.new_unique()), "11111111111111111111111111111111", last_valid, b"tx"
    )


def seen(slot: int, level: str, err: object = None) -> SignatureStatus:
    return SignatureStatus(slot=slot, confirmations=None, err=err, confirmation_status=level)


async def create(session: AsyncSession, op_key: str, first: Signed) -> WriteRecord:
    return await WriteRecord.create(
        session,
        first,
        op_key=op_key,
        kind="test",
        commitment="finalized",
        payload_hash="h" * 64,
        fee_payer="11111111111111111111111111111111",
        meta={},
    )


async def load(session: AsyncSession, op_key: str) -> WriteRecord:
    (record,) = await WriteRecord.load(session, [op_key])
    return record


async def test_a_write_from_signed_to_succeeded_through_a_fork_and_a_re_sign(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    op_key, first, second = f"test-record-{uuid.uuid4().hex}", signed(100), signed(250)
    async with session_maker() as session:
        record = await create(session, op_key, first)
        assert (record.status, record.signature, record.final) == ("signed", first.signature, False)
        await session.commit()
    async with session_maker() as session:  # the same op_key again: refused by the database
        with pytest.raises(IntegrityError):
            await create(session, op_key, signed())

    async with session_maker() as session:
        await WriteRecord.sent(session, op_key, first.signature, "node said: try again")
        await session.commit()
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.send_count, stored.last_send_error) == (
        "sent", 1, "node said: try again",
    )  # fmt: skip

    async with session_maker() as session:  # seen below the awaited commitment: not final
        record = await load(session, op_key)
        assert record.landed(record.current, seen(40, "confirmed")) is False
        await session.commit()
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.slot, stored.confirmation_status) == ("landed", 40, "confirmed")
    assert [a.status for a in await attempt_rows(session_maker, op_key)] == ["landed"]

    async with session_maker() as session:  # its fork is gone, then the blockhash expired
        record = await load(session, op_key)
        record.dropped()
        assert (record.status, record.snapshot().slot) == ("sent", None)
        await record.expired(second)
        assert record.snapshot().previous_signatures == (first.signature,)
        await session.commit()
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.attempt, stored.signature) == ("signed", 2, second.signature)
    assert (stored.last_valid_block_height, stored.last_send_error) == (250, None)
    attempts = await attempt_rows(session_maker, op_key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "expired"), (2, "signed")]

    async with session_maker() as session:  # a late sent() of the old bytes changes nothing
        await WriteRecord.sent(session, op_key, first.signature, None)
        await session.commit()
    assert (await row(session_maker, op_key)).send_count == 1

    async with session_maker() as session:  # the OLD attempt landed after all: the chain wins
        record = await load(session, op_key)
        old = record.attempts[0]
        assert record.live_attempts() == [record.current]  # an expired one is not asked about
        assert record.landed(old, seen(60, "finalized")) is True
        record.settle(None, 58)
        write = record.snapshot()
        await session.commit()
    assert (write.status, write.signature, write.attempt) == ("succeeded", first.signature, 1)
    assert (write.slot, write.block_height, write.previous_signatures) == (
        60, 58, (second.signature,),
    )  # fmt: skip
    stored = await row(session_maker, op_key)
    assert stored.completed_at is not None and stored.err is None
    attempts = await attempt_rows(session_maker, op_key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "succeeded"), (2, "signed")]


async def test_failed_refused_and_abandoned_are_final(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    failed, refused, abandoned = (f"test-record-{uuid.uuid4().hex}" for _ in range(3))
    async with session_maker() as session:
        for op_key in (failed, refused, abandoned):
            await create(session, op_key, signed())
        await session.commit()
    err = {"InstructionError": [0, {"Custom": 1}]}
    async with session_maker() as session:
        record = await load(session, failed)
        assert record.landed(record.current, seen(70, "finalized", err)) is True
        record.settle(err, None)
        (await load(session, refused)).refused(err)
        (await load(session, abandoned)).abandoned("operator: the user asked" + "!" * 300)
        await session.commit()
    for op_key, status in ((failed, "failed"), (refused, "failed"), (abandoned, "expired")):
        stored = await row(session_maker, op_key)
        assert stored.status == "failed" and stored.completed_at is not None
        assert [a.status for a in await attempt_rows(session_maker, op_key)] == [status]
    assert (await row(session_maker, failed)).err == err
    cancelled = (await row(session_maker, abandoned)).err
    assert cancelled == {"operator_cancelled": "operator: the user asked" + "!" * 176}
