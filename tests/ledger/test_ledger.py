"""The ledger's invariants on a real PostgreSQL, including under concurrency."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.last import commit_last
from db.models import Hold, LedgerEntry
from ledger.service import Balances, InsufficientFunds, Ledger, Move

Maker = async_sessionmaker[AsyncSession]


def _uid() -> str:
    return f"u_{uuid.uuid4().hex[:12]}"


async def _funded(maker: Maker, amount: int, currency: str = "MCC") -> str:
    uid = _uid()
    async with maker() as session:
        await Ledger(session).credit(uid, currency, amount, reference="seed")
        await session.commit()
    return uid


async def _balances(maker: Maker, uid: str, currency: str = "MCC") -> Balances:
    async with maker() as session:
        return await Ledger(session).balances(uid, currency)


async def _entry_sums(maker: Maker, uid: str) -> tuple[int, int, int]:
    async with maker() as session:
        row = (
            await session.execute(
                select(
                    func.coalesce(func.sum(LedgerEntry.d_balance), 0),
                    func.coalesce(func.sum(LedgerEntry.d_held), 0),
                    func.coalesce(func.sum(LedgerEntry.d_pending_out), 0),
                ).where(LedgerEntry.user_uid == uid)
            )
        ).one()
    return int(row[0]), int(row[1]), int(row[2])


async def test_reserve_and_void_move_available_and_leave_entries(session_maker: Maker) -> None:
    uid = await _funded(session_maker, 1_000)
    async with session_maker() as session:
        await Ledger(session).reserve("h1-" + uid, uid, "MCC", 400, reason="auction_bid")
        await session.commit()
    b = await _balances(session_maker, uid)
    assert (b.balance, b.held, b.available) == (1_000, 400, 600)

    async with session_maker() as session:
        voided = await Ledger(session).void("h1-" + uid, "outbid")
        await session.commit()
    assert voided is not None and voided.status == "voided"
    b = await _balances(session_maker, uid)
    assert (b.held, b.available) == (0, 1_000)
    assert await _entry_sums(session_maker, uid) == (b.balance, b.held, b.pending_out)


async def test_insufficient_funds_writes_nothing(session_maker: Maker) -> None:
    uid = await _funded(session_maker, 100)
    async with session_maker() as session:
        with pytest.raises(InsufficientFunds) as info:
            await Ledger(session).reserve("h-" + uid, uid, "MCC", 101)
        await session.rollback()
    assert info.value.available == 100 and info.value.requested == 101
    async with session_maker() as session:
        assert await session.get(Hold, "h-" + uid) is None
    assert await _entry_sums(session_maker, uid) == (100, 0, 0)


async def test_fifty_concurrent_reservations_never_exceed_the_balance(
    session_maker: Maker,
) -> None:
    uid = await _funded(session_maker, 100)

    async def reserve(i: int) -> bool:
        async with session_maker() as session:
            try:
                await Ledger(session).reserve(f"c{i}-{uid}", uid, "MCC", 3)
                await session.commit()
                return True
            except InsufficientFunds:
                await session.rollback()
                return False

    results = await asyncio.gather(*(reserve(i) for i in range(50)))
    assert sum(results) == 33  # 33 * 3 = 99 <= 100 < 34 * 3
    b = await _balances(session_maker, uid)
    assert (b.held, b.available) == (99, 1)
    assert await _entry_sums(session_maker, uid) == (100, 99, 0)


async def test_a_hold_resolves_exactly_once_under_racing_resolvers(session_maker: Maker) -> None:
    uid = await _funded(session_maker, 500)
    hold_id = "race-" + uid
    async with session_maker() as session:
        await Ledger(session).reserve(hold_id, uid, "MCC", 200)
        await session.commit()

    async def resolve(i: int) -> str | None:
        async with session_maker() as session:
            ledger = Ledger(session)
            hold = await (ledger.expire(hold_id) if i % 2 else ledger.void(hold_id, "unlock"))
            await session.commit()
            return hold.status if hold else None

    outcomes = await asyncio.gather(*(resolve(i) for i in range(10)))
    winners = [o for o in outcomes if o is not None]
    assert len(winners) == 1 and winners[0] in ("voided", "expired")
    b = await _balances(session_maker, uid)
    assert (b.held, b.available) == (0, 500)
    assert await _entry_sums(session_maker, uid) == (500, 0, 0)


async def test_settlement_posts_the_hold_then_debits_or_returns(session_maker: Maker) -> None:
    uid = await _funded(session_maker, 1_000)
    async with session_maker() as session:
        ledger = Ledger(session)
        await ledger.reserve("s1-" + uid, uid, "MCC", 300)
        await ledger.reserve("s2-" + uid, uid, "MCC", 200)
        posted = await ledger.post("s1-" + uid, "transfer-1")
        assert posted is not None
        assert await ledger.post("s1-" + uid, "transfer-1") is None  # once only
        await session.commit()
    b = await _balances(session_maker, uid)
    assert (b.held, b.pending_out, b.available) == (200, 300, 500)

    async with session_maker() as session:
        await Ledger(session).post("s2-" + uid, "transfer-2")
        await Ledger(session).cancel_out(uid, "MCC", 200, "transfer-2")  # chain refused it
        # transfer-1 finalized on chain: the settlement's debit, sent with the COMMIT
        ref = "transfer-1"
        debit = Move(uid, "MCC", "debit", 300, d_balance=-300, d_pending_out=-300, reference=ref)
        await Ledger(session).apply_many([debit])
        await commit_last(session)
    b = await _balances(session_maker, uid)
    assert (b.balance, b.held, b.pending_out, b.available) == (700, 0, 0, 700)
    assert await _entry_sums(session_maker, uid) == (700, 0, 0)


async def test_outgoing_without_hold_needs_available_funds(session_maker: Maker) -> None:
    uid = await _funded(session_maker, 50)
    async with session_maker() as session:
        await Ledger(session).reserve("o-" + uid, uid, "MCC", 30)
        with pytest.raises(InsufficientFunds):
            await Ledger(session).begin_out(uid, "MCC", 21, "t")
        await Ledger(session).begin_out(uid, "MCC", 20, "t")
        await session.commit()
    assert (await _balances(session_maker, uid)).available == 0


async def test_entries_are_append_only(session_maker: Maker) -> None:
    uid = await _funded(session_maker, 10)
    async with session_maker() as session:
        with pytest.raises(DBAPIError, match="append-only"):
            await session.execute(
                text("UPDATE ledger_entries SET amount = 1 WHERE user_uid = :u"), {"u": uid}
            )
        await session.rollback()
    async with session_maker() as session:
        with pytest.raises(DBAPIError, match="append-only"):
            await session.execute(
                text("DELETE FROM ledger_entries WHERE user_uid = :u"), {"u": uid}
            )
        await session.rollback()


async def test_the_database_itself_refuses_a_negative_available(session_maker: Maker) -> None:
    uid = await _funded(session_maker, 10)
    async with session_maker() as session:
        with pytest.raises(IntegrityError, match="available_nonneg"):
            await session.execute(
                text("UPDATE ledger_accounts SET held = 11 WHERE user_uid = :u"), {"u": uid}
            )
        await session.rollback()
    async with session_maker() as session:
        with pytest.raises(IntegrityError, match="amount_positive"):
            await Ledger(session).reserve("z-" + uid, uid, "MCC", 1)
            await session.execute(
                text("UPDATE holds SET amount = 0 WHERE id = :i"), {"i": "z-" + uid}
            )
        await session.rollback()


async def test_apply_many_moves_each_account_by_its_entries_or_not_at_all(
    session_maker: Maker,
) -> None:
    a, b = await _funded(session_maker, 100), await _funded(session_maker, 50)
    c = _uid()  # no account yet: created by the batch
    async with session_maker() as session:
        ledger = Ledger(session)
        await ledger.begin_out(a, "MCC", 30, "t1")
        await ledger.begin_out(a, "MCC", 20, "t2")
        await ledger.apply_many(
            [
                Move(a, "MCC", "debit", 30, d_balance=-30, d_pending_out=-30, reference="t1"),
                Move(c, "MCC", "credit", 30, d_balance=30, reference="t1"),
                Move(a, "MCC", "debit", 20, d_balance=-20, d_pending_out=-20, reference="t2"),
                Move(b, "MCC", "credit", 20, d_balance=20, reference="t2"),
            ]
        )
        await commit_last(session)  # the batch goes with the COMMIT
    assert await _balances(session_maker, a) == Balances(a, "MCC", 50, 0, 0)
    assert await _balances(session_maker, b) == Balances(b, "MCC", 70, 0, 0)
    assert await _balances(session_maker, c) == Balances(c, "MCC", 30, 0, 0)
    for uid in (a, b, c):  # every account is still the sum of its entries
        b_now = await _balances(session_maker, uid)
        assert await _entry_sums(session_maker, uid) == (b_now.balance, 0, 0)

    # One move that would overdraw fails the whole batch at the commit: nothing is written.
    async with session_maker() as session:
        await Ledger(session).apply_many(
            [
                Move(b, "MCC", "credit", 5, d_balance=5, reference="t3"),
                Move(c, "MCC", "debit", 31, d_balance=-31, reference="t3"),
            ]
        )
        with pytest.raises(IntegrityError):
            await commit_last(session)
        await session.rollback()
    assert await _balances(session_maker, b) == Balances(b, "MCC", 70, 0, 0)
    assert await _entry_sums(session_maker, c) == (30, 0, 0)


async def test_concurrent_batches_over_the_same_accounts_lose_no_update(
    session_maker: Maker,
) -> None:
    """Batches that touch the same accounts in opposite orders, beside single moves on them:
    none deadlocks, none is lost (the batch locks in one order and adds to the row it locked),
    and every account ends as the sum of its entries."""
    accounts = [await _funded(session_maker, 10_000) for _ in range(4)]

    async def batch(i: int) -> None:
        order = accounts if i % 2 else accounts[::-1]
        payer, payee = order[0], order[-1]
        async with session_maker() as session:
            await Ledger(session).apply_many(
                [Move(payer, "MCC", "debit", 7, d_balance=-7, reference=f"b{i}")]
                + [Move(u, "MCC", "credit", 1, d_balance=1, reference=f"b{i}") for u in order[1:]]
                + [Move(payee, "MCC", "credit", 4, d_balance=4, reference=f"b{i}")]
            )
            await commit_last(session)

    async def single(i: int) -> None:
        async with session_maker() as session:
            await Ledger(session).credit(accounts[i % 4], "MCC", 2, reference=f"s{i}")
            await session.commit()

    await asyncio.gather(*(batch(i) for i in range(24)), *(single(i) for i in range(24)))
    balances = [(await _balances(session_maker, u)).balance for u in accounts]
    # Each batch moves 7 out and 7 in; each single adds 2 (six per account).
    assert sum(balances) == 4 * 10_000 + 24 * 2
    for uid, balance in zip(accounts, balances, strict=True):
        assert await _entry_sums(session_maker, uid) == (balance, 0, 0)
    # The first account pays 7 in the 12 batches in order and receives 1 + 4 in the 12 reversed.
    assert balances[0] == 10_000 - 12 * 7 + 12 * 5 + 6 * 2


async def test_concurrent_batches_creating_the_same_new_accounts_lose_no_credit(
    session_maker: Maker,
) -> None:
    """Batches whose receivers have no account yet, all at once, beside single credits: each
    new account is created once and gains every batch's credit (the booking creates a missing
    account in the statement that books, so a batch that meets one created meanwhile adds to
    it), and ends as the sum of its entries."""
    payer = await _funded(session_maker, 10_000)
    fresh = [_uid() for _ in range(3)]

    async def batch(i: int) -> None:
        order = fresh if i % 2 else fresh[::-1]
        async with session_maker() as session:
            await Ledger(session).apply_many(
                [Move(payer, "MCC", "debit", 3, d_balance=-3, reference=f"n{i}")]
                + [Move(u, "MCC", "credit", 1, d_balance=1, reference=f"n{i}") for u in order]
            )
            await commit_last(session)

    async def single(i: int) -> None:
        async with session_maker() as session:
            await Ledger(session).credit(fresh[i % 3], "MCC", 2, reference=f"m{i}")
            await session.commit()

    await asyncio.gather(*(batch(i) for i in range(16)), *(single(i) for i in range(6)))
    assert (await _balances(session_maker, payer)).balance == 10_000 - 16 * 3
    for uid in fresh:
        assert (await _balances(session_maker, uid)).balance == 16 + 2 * 2
        assert await _entry_sums(session_maker, uid) == (16 + 2 * 2, 0, 0)
