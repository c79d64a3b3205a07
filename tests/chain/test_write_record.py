"""``WriteRecord``: every move of a chain write's row and its attempts, on the real database.

The chain is not needed here (the protocol that decides the moves is tested against the node in
``test_gateway_writes.py``): the signatures are made up, the statuses are what
getSignatureStatuses would answer."""

from __future__ import annotations

import asyncio
import uuid

from solders.signature import Signature
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.answers import SignatureStatus
from chain.write_record import Signed, WriteRecord
from db.last import autocommit
from tests.chain.gateway_support import attempt_rows, row


def signed(last_valid: int = 100) -> Signed:
    return Signed(
        str(Signature.new_unique()), "11111111111111111111111111111111", last_valid, b"tx"
    )


def seen(slot: int, level: str, err: object = None) -> SignatureStatus:
    return SignatureStatus(slot=slot, confirmations=None, err=err, confirmation_status=level)


async def record_new(
    session: AsyncSession, op_key: str, first: Signed, **extra: object
) -> WriteRecord | None:
    return await WriteRecord.create(
        session,
        first,
        op_key=op_key,
        kind="test",
        commitment="finalized",
        payload_hash="h" * 64,
        fee_payer="11111111111111111111111111111111",
        **{"meta": {}, **extra},  # type: ignore[arg-type]
    )


async def create(session: AsyncSession, op_key: str, first: Signed) -> WriteRecord:
    record = await record_new(session, op_key, first)
    assert record is not None
    return record


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
    async with session_maker() as session:  # the same op_key again: the first one stays
        again = await record_new(session, op_key, signed(), meta={})
        assert again is None
        await session.commit()
    assert (await row(session_maker, op_key)).signature == first.signature
    assert len(await attempt_rows(session_maker, op_key)) == 1

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
        for op_key in (failed, abandoned):
            await create(session, op_key, signed())
        await session.commit()
    err = {"InstructionError": [0, {"Custom": 1}]}
    async with session_maker() as session:
        record = await load(session, failed)
        assert record.landed(record.current, seen(70, "finalized", err)) is True
        record.settle(err, None)
        await record_new(session, refused, signed(), meta={}, refused=err)
        (await load(session, abandoned)).abandoned("operator: the user asked" + "!" * 300)
        await session.commit()
    for op_key, status in ((failed, "failed"), (refused, "failed"), (abandoned, "expired")):
        stored = await row(session_maker, op_key)
        assert stored.status == "failed" and stored.completed_at is not None
        assert [a.status for a in await attempt_rows(session_maker, op_key)] == [status]
    assert (await row(session_maker, failed)).err == err
    cancelled = (await row(session_maker, abandoned)).err
    assert cancelled == {"operator_cancelled": "operator: the user asked" + "!" * 176}


async def test_a_refused_write_is_recorded_final_in_its_one_statement(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    op_key, err = f"test-record-{uuid.uuid4().hex}", {"InstructionError": [0, {"Custom": 6}]}
    async with autocommit(session_maker) as session:
        record = await record_new(session, op_key, signed(), meta={"a": 1}, refused=err)
    assert record is not None and record.final and record.snapshot().err == err
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.err, stored.meta) == ("failed", err, {"a": 1})
    assert stored.completed_at is not None and stored.send_count == 0
    assert [a.status for a in await attempt_rows(session_maker, op_key)] == ["failed"]


async def test_store_writes_an_unlocked_move_only_if_nobody_moved_the_record(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    op_key, first, second = f"test-record-{uuid.uuid4().hex}", signed(100), signed(250)
    async with session_maker() as session:
        await create(session, op_key, first)
        await WriteRecord.sent(session, op_key, first.signature, None)
        await session.commit()

    async with autocommit(session_maker) as session:  # read without the lock, as a tick does
        (record,) = await WriteRecord.load(session, [op_key], lock=False)
    assert record.landed(record.current, seen(40, "confirmed")) is False
    async with autocommit(session_maker) as session:
        assert await record.store(session) is True
        assert await record.store(session) is True  # nothing new: no statement
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.slot, stored.confirmation_status) == ("landed", 40, "confirmed")
    assert [a.status for a in await attempt_rows(session_maker, op_key)] == ["landed"]

    async with autocommit(session_maker) as session:  # a tick reads it ...
        (stale,) = await WriteRecord.load(session, [op_key], lock=False)
    async with session_maker() as session:  # ... another decider re-signs it meanwhile ...
        locked = await load(session, op_key)
        locked.dropped()
        await locked.expired(second)
        await session.commit()
    assert stale.landed(stale.current, seen(60, "finalized")) is True
    stale.settle(None, 58)
    async with autocommit(session_maker) as session:  # ... so the tick's verdict is not written
        assert await stale.store(session) is False
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.attempt, stored.signature) == ("signed", 2, second.signature)
    assert stored.completed_at is None and stored.slot is None
    attempts = await attempt_rows(session_maker, op_key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "expired"), (2, "signed")]

    async with autocommit(session_maker) as session:  # read again, it settles
        (record,) = await WriteRecord.load(session, [op_key], lock=False)
    assert record.landed(record.current, seen(70, "finalized")) is True
    record.settle(None, 68)
    async with autocommit(session_maker) as session:
        assert await record.store(session) is True
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.signature, stored.slot, stored.block_height) == (
        "succeeded", second.signature, 70, 68,
    )  # fmt: skip
    assert stored.completed_at is not None and stored.fee_lamports is None  # b"tx": no fee
    attempts = await attempt_rows(session_maker, op_key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "expired"), (2, "succeeded")]


async def test_a_locked_load_that_waited_sees_the_attempt_a_re_sign_added(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """The row and its attempts are read in one statement; one that waited for the row's lock
    while another decider re-signed must still see the new current attempt."""
    op_key, first, second = f"test-record-{uuid.uuid4().hex}", signed(100), signed(250)
    async with session_maker() as session:
        await create(session, op_key, first)
        await session.commit()
    async with session_maker() as holder, session_maker() as waiter:
        held = await load(holder, op_key)
        await held.expired(second)  # flushed, not committed: the lock is held
        waiting = asyncio.create_task(load(waiter, op_key))
        await asyncio.sleep(0.3)
        assert not waiting.done()  # it waits for the lock
        await holder.commit()
        record = await waiting
        assert (record.signature, record.current.attempt) == (second.signature, 2)
        assert [(a.attempt, a.status) for a in record.attempts] == [(1, "expired"), (2, "signed")]
        await waiter.rollback()


async def test_the_hot_moves_run_statements_built_once(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """A transfer's record moves (its creation, the unlocked load, the send counted, the tick's
    landed and settled ``store``) run statements built once, not an expression (and its cache
    key) per call: two writes through the same moves execute the very same statement objects,
    and the values they write are each write's own. The old code built each statement per
    call (the creation's until issue 43's pass seven)."""
    bind = session_maker.kw["bind"].sync_engine
    executed: list[object] = []

    def seen_statement(conn: object, clause: object, *args: object) -> None:
        executed.append(clause)

    async def through_the_moves(op_key: str, first: Signed, slot: int) -> list[object]:
        executed.clear()
        async with session_maker() as session:
            await create(session, op_key, first)
            await session.commit()
        async with autocommit(session_maker) as session:
            await WriteRecord.sent(session, op_key, first.signature, None)
        async with autocommit(session_maker) as session:
            (record,) = await WriteRecord.load(session, [op_key], lock=False)
        assert record.landed(record.current, seen(slot, "finalized")) is True
        record.settle(None, slot - 2)
        async with autocommit(session_maker) as session:
            assert await record.store(session) is True
        return [c for c in executed if not isinstance(c, str)]

    event.listen(bind, "before_execute", seen_statement)
    try:
        one = await through_the_moves(f"test-record-{uuid.uuid4().hex}", signed(100), 40)
        op_key, first = f"test-record-{uuid.uuid4().hex}", signed(200)
        two = await through_the_moves(op_key, first, 90)
    finally:
        event.remove(bind, "before_execute", seen_statement)
    assert len(one) == len(two) >= 4
    assert all(a is b for a, b in zip(one, two, strict=True))
    stored = await row(session_maker, op_key)
    assert (stored.status, stored.signature, stored.slot, stored.block_height) == (
        "succeeded", first.signature, 90, 88,
    )  # fmt: skip
    assert (stored.send_count, stored.last_send_error, stored.err) == (1, None, None)
    assert (stored.blockhash, stored.tx_bytes, stored.attempt) == (
        first.blockhash,
        first.tx_bytes,
        1,
    )
    assert [a.status for a in await attempt_rows(session_maker, op_key)] == ["succeeded"]


async def test_known_signatures_runs_one_statement_built_once(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """The deposit watcher asks which signatures are the gateway's own for every block that
    touches a custody account (the gateway's own writes' blocks included): one statement
    built once, whatever the number asked, that finds each write's signature and no other.
    The old code built it per call."""
    from chain.tx_store import known_signatures

    one, two = signed(), signed()
    async with session_maker() as session:
        for first in (one, two):
            await create(session, f"test-record-{uuid.uuid4().hex}", first)
        await session.commit()
    bind = session_maker.kw["bind"].sync_engine
    executed: list[object] = []

    def seen_statement(conn: object, clause: object, *args: object) -> None:
        executed.append(clause)

    stranger = str(Signature.new_unique())
    event.listen(bind, "before_execute", seen_statement)
    try:
        async with autocommit(session_maker) as session:
            both = await known_signatures(session, [one.signature, stranger, two.signature])
            alone = await known_signatures(session, [two.signature])
            none = await known_signatures(session, [stranger])
    finally:
        event.remove(bind, "before_execute", seen_statement)
    assert (both, alone, none) == ({one.signature, two.signature}, {two.signature}, set())
    statements = [c for c in executed if not isinstance(c, str)]
    assert len(statements) == 3 and statements[0] is statements[1] is statements[2]
