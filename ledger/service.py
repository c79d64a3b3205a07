"""Ledger operations. Every change is one conditional UPDATE of the account row plus one
append-only entry, in the caller's transaction: this module only flushes, the caller commits.

Why conditional updates: PostgreSQL re-checks the WHERE clause on the locked row, so
concurrent reservations serialise on the account row and can never overdraw it; the check
constraints are the backstop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import (
    delete,
    func,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from core.errors import DomainError
from db.last import LastStatement, run_last
from db.models.ledger import Hold, LedgerAccount

# Batch statements take arrays (unnest), so their text is the same whatever the batch size:
# compiled once and prepared by the driver, where a VALUES list would be compiled every time.
# NOT EXISTS first: an INSERT that meets an existing key waits for whoever holds that row
# locked (a settlement, an accept's reservation), even under DO NOTHING; a snapshot read does
# not. Only a new account takes the insert path.
_ENSURE_ACCOUNTS = """
INSERT INTO ledger_accounts (user_uid, currency)
SELECT k.user_uid, k.currency
FROM unnest(CAST(:uids AS text[]), CAST(:currencies AS text[])) AS k(user_uid, currency)
WHERE NOT EXISTS (
    SELECT 1 FROM ledger_accounts a WHERE a.user_uid = k.user_uid AND a.currency = k.currency
)
ON CONFLICT (user_uid, currency) DO NOTHING
"""
_LOCKED = """
WITH locked AS (
    SELECT a.user_uid, a.currency FROM ledger_accounts a
    JOIN unnest(CAST(:uids AS text[]), CAST(:currencies AS text[])) AS k(user_uid, currency)
      ON a.user_uid = k.user_uid AND a.currency = k.currency
    ORDER BY a.user_uid, a.currency
    FOR UPDATE OF a
)"""
# The whole booking of a batch in one statement, sent with the COMMIT (db.last), so the
# accounts stay locked for its execution and the commit inside the server, never for a round
# trip to a client that may be busy (the worker runs at a lower CPU priority than the API, whose
# accepts wait for these rows). Every row the UPDATE changes comes out of ``locked`` first, so
# the locks are still taken in one order.
_BOOK = (
    _LOCKED
    + """, added AS (
    UPDATE ledger_accounts a
    SET balance = a.balance + d.d_balance,
        held = a.held + d.d_held,
        pending_out = a.pending_out + d.d_pending_out,
        updated_at = now()
    FROM locked l JOIN unnest(
        CAST(:uids AS text[]), CAST(:currencies AS text[]), CAST(:d_balance AS bigint[]),
        CAST(:d_held AS bigint[]), CAST(:d_pending_out AS bigint[])
    ) AS d(user_uid, currency, d_balance, d_held, d_pending_out)
      ON d.user_uid = l.user_uid AND d.currency = l.currency
    WHERE a.user_uid = l.user_uid AND a.currency = l.currency
)
INSERT INTO ledger_entries
    (user_uid, currency, kind, amount, d_balance, d_held, d_pending_out, reference)
SELECT * FROM unnest(
    CAST(:e_uids AS text[]), CAST(:e_currencies AS text[]), CAST(:e_kinds AS text[]),
    CAST(:e_amounts AS bigint[]), CAST(:e_d_balance AS bigint[]), CAST(:e_d_held AS bigint[]),
    CAST(:e_d_pending_out AS bigint[]), CAST(:e_references AS text[])
)
"""
)


class LedgerError(Exception):
    """A broken invariant (a non-positive amount): a programming error, never a client's
    refusal, so it is not a DomainError and leaves as a logged 500 ``internal-error``."""


class InsufficientFunds(LedgerError, DomainError):
    """The one business refusal of the ledger. The engine re-raises it with amounts in decimal
    units (``engine.errors.insufficient``); the slug and status are the same either way."""

    status, slug = 422, "insufficient-funds"

    def __init__(self, user_uid: str, currency: str, requested: int, available: int) -> None:
        super().__init__(
            f"{user_uid} has {available} {currency} base units available, needs {requested}"
        )
        self.user_uid, self.currency = user_uid, currency
        self.requested, self.available = requested, available


@dataclass(frozen=True)
class Balances:
    user_uid: str
    currency: str
    balance: int
    held: int
    pending_out: int

    @property
    def available(self) -> int:
        return self.balance - self.held - self.pending_out


_BOOKS = (LedgerAccount.balance, LedgerAccount.held, LedgerAccount.pending_out)


@dataclass(frozen=True)
class Move:
    """One entry of a batch (``Ledger.apply_many``): the same fields as a single move."""

    user_uid: str
    currency: str
    kind: str
    amount: int
    d_balance: int = 0
    d_held: int = 0
    d_pending_out: int = 0
    reference: str | None = None


class Ledger:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    # -- reads -------------------------------------------------------------------------

    async def balances(self, user_uid: str, currency: str) -> Balances:
        row = (
            await self.session.execute(
                select(*_BOOKS).where(
                    LedgerAccount.user_uid == user_uid, LedgerAccount.currency == currency
                )
            )
        ).one_or_none()
        balance, held, pending = row if row is not None else (0, 0, 0)
        return Balances(user_uid, currency, balance, held, pending)

    async def apply_many(self, moves: Sequence[Move]) -> None:
        """Many moves in two statements whatever their number (batch settlement), both sent
        with the COMMIT (``db.last.run_last``: commit with ``commit_last``): missing accounts
        created, then one statement that locks the accounts in one order, adds each account's
        totals and inserts every entry (each move keeps its own entry and reference, so every
        account still equals the sum of its entries). The check constraints refuse any move
        that would leave an account negative, failing the whole batch (the commit raises and
        nothing of the transaction is written)."""
        if not moves:
            return
        for m in moves:
            if m.amount <= 0:
                raise LedgerError(f"amount must be positive, got {m.amount}")
        totals: dict[tuple[str, str], list[int]] = {}
        for m in moves:
            t = totals.setdefault((m.user_uid, m.currency), [0, 0, 0])
            t[0] += m.d_balance
            t[1] += m.d_held
            t[2] += m.d_pending_out
        rows = sorted(totals.items())
        uids, currencies = [u for (u, _), _ in rows], [c for (_, c), _ in rows]
        accounts = {"uids": uids, "currencies": currencies}
        run_last(self.session, LastStatement(_ENSURE_ACCOUNTS, accounts))
        book = LastStatement(
            _BOOK,
            {
                **accounts,
                "d_balance": [t[0] for _, t in rows],
                "d_held": [t[1] for _, t in rows],
                "d_pending_out": [t[2] for _, t in rows],
                "e_uids": [m.user_uid for m in moves],
                "e_currencies": [m.currency for m in moves],
                "e_kinds": [m.kind for m in moves],
                "e_amounts": [m.amount for m in moves],
                "e_d_balance": [m.d_balance for m in moves],
                "e_d_held": [m.d_held for m in moves],
                "e_d_pending_out": [m.d_pending_out for m in moves],
                "e_references": [m.reference for m in moves],
            },
        )
        run_last(self.session, book)

    # -- single-phase moves --------------------------------------------------------------

    async def credit(self, user_uid: str, currency: str, amount: int, reference: str) -> Balances:
        """Funds arrived in the user's custody account (a finalized mint or incoming transfer)."""
        return await self._apply(
            user_uid, currency, "credit", amount, d_balance=amount, reference=reference
        )

    async def begin_out(
        self, user_uid: str, currency: str, amount: int, reference: str
    ) -> Balances:
        """Reserve funds for an outgoing transfer that settles no hold."""
        return await self._apply(
            user_uid,
            currency,
            "begin_out",
            amount,
            d_pending_out=amount,
            reference=reference,
            need_available=amount,
        )

    def begin_out_last(
        self,
        user_uid: str,
        currency: str,
        amount: int,
        reference: str,
        refused: Callable[[InsufficientFunds], Exception],
    ) -> None:
        """``begin_out`` at the commit point, sent with the COMMIT (``db.last``: every transfer
        of the user updates this row, so it is locked for its statement and the commit only,
        and the accept saves the round trip a step of its own would cost). Where the amount is
        not available nothing is written and the request raises ``refused(InsufficientFunds)``,
        whose available amount the statement read when it refused (the account's row locked,
        its latest committed version: 0 without an account)."""
        if amount <= 0:
            raise LedgerError(f"amount must be positive, got {amount}")

        def refusal(available: str) -> Exception:
            return refused(InsufficientFunds(user_uid, currency, amount, int(available or 0)))

        params = {
            "user_uid": user_uid,
            "currency": currency,
            "amount": amount,
            "reference": reference,
        }
        statement = LastStatement(
            _BEGIN_OUT, params, refusal, with_=_BEGIN_OUT_MOVED, detail=_AVAILABLE_NOW
        )
        run_last(self.session, statement)

    async def cancel_out(
        self, user_uid: str, currency: str, amount: int, reference: str
    ) -> Balances:
        """The outgoing transfer failed or was cancelled: its funds are available again."""
        return await self._apply(
            user_uid, currency, "cancel_out", amount, d_pending_out=-amount, reference=reference
        )

    # -- two-phase holds -----------------------------------------------------------------

    async def reserve(
        self,
        hold_id: str,
        user_uid: str,
        currency: str,
        amount: int,
        *,
        project_id: int | None = None,
        reason: str | None = None,
        reference_id: str | None = None,
        expires_at: datetime | None = None,
    ) -> tuple[Hold, Balances] | None:
        """Record the hold and reserve ``amount`` for it: the hold and the account after. None
        (nothing written) when a hold with this id exists already, so a repeat is told before
        any refusal the first run's own reservation could cause; raises InsufficientFunds and
        writes nothing if the amount isn't there. Two statements (issue 43): the hold's INSERT
        (``ON CONFLICT DO NOTHING``, for an existing account only: the hold refers to it), then
        the move, whose RETURNING is the account after."""
        values = {
            "id": hold_id, "user_uid": user_uid, "currency": currency, "amount": amount,
            "project_id": project_id, "reason": reason, "reference_id": reference_id,
            "expires_at": expires_at,
        }  # fmt: skip
        hold = (
            await self.session.execute(
                _NEW_HOLD, values, execution_options={"populate_existing": True}
            )
        ).scalar_one_or_none()
        if hold is None:
            if await self.session.get(Hold, hold_id) is not None:
                return None
            raise InsufficientFunds(user_uid, currency, amount, 0)  # no account: nothing held
        try:
            balances = await self._apply(
                user_uid,
                currency,
                "hold",
                amount,
                d_held=amount,
                hold_id=hold_id,
                reference=reference_id,
                need_available=amount,
            )
        except InsufficientFunds:
            # Nothing stays written, whatever the caller does next (the refusal's path only).
            await self.session.execute(delete(Hold).where(Hold.id == hold_id))
            self.session.expunge(hold)
            raise
        return hold, balances

    async def void(self, hold_id: str, resolution: str) -> Hold | None:
        """Release an active hold (unlock). None when it was already resolved."""
        return _hold(await self._resolve(hold_id, "voided", "void", resolution, d_held=-1))

    async def release(
        self, hold_id: str, resolution: str, *, project_id: int
    ) -> tuple[Hold, Balances] | None:
        """``void`` of a hold of this project only, with the account after the move (from its
        RETURNING, no read of its own). None when the project holds no such active hold."""
        return await self._resolve(
            hold_id, "voided", "void", resolution, d_held=-1, project_id=project_id
        )

    async def expire(self, hold_id: str) -> Hold | None:
        """Release an active hold whose time ran out. None when it was already resolved."""
        return _hold(await self._resolve(hold_id, "expired", "expire", "expired", d_held=-1))

    async def post(self, hold_id: str, reference: str) -> Hold | None:
        """Consume an active hold for a settlement transfer: held becomes outgoing pending."""
        moved = await self._resolve(hold_id, "posted", "post", reference, d_held=-1, d_pending=1)
        return _hold(moved)

    async def debit_hold(self, hold_id: str, reference: str) -> Hold | None:
        """The hold's funds left custody (a withdrawal finalized on chain): the hold is posted
        and the balance debited by its amount in one entry. None when already resolved."""
        moved = await self._resolve(hold_id, "posted", "debit", reference, d_held=-1, d_balance=-1)
        return _hold(moved)

    # -- internals -----------------------------------------------------------------------

    async def _resolve(
        self,
        hold_id: str,
        status: str,
        kind: str,
        resolution: str,
        *,
        d_held: int,
        d_pending: int = 0,
        d_balance: int = 0,
        project_id: int | None = None,
    ) -> tuple[Hold, Balances] | None:
        # Exactly once: only the caller whose UPDATE flips 'active' gets the row back.
        held = [Hold.id == hold_id, Hold.status == "active"]
        if project_id is not None:
            held.append(Hold.project_id == project_id)
        hold = (
            await self.session.execute(
                update(Hold)
                .where(*held)
                .values(status=status, resolved_at=func.now(), resolution=resolution[:200])
                .returning(Hold)
            )
        ).scalar_one_or_none()
        if hold is None:
            return None
        balances = await self._apply(
            hold.user_uid,
            hold.currency,
            kind,
            hold.amount,
            d_balance=d_balance * hold.amount,
            d_held=d_held * hold.amount,
            d_pending_out=d_pending * hold.amount,
            hold_id=hold.id,
            reference=resolution,
        )
        return hold, balances

    async def _apply(
        self,
        user_uid: str,
        currency: str,
        kind: str,
        amount: int,
        *,
        d_balance: int = 0,
        d_held: int = 0,
        d_pending_out: int = 0,
        hold_id: str | None = None,
        reference: str | None = None,
        need_available: int | None = None,
    ) -> Balances:
        """The account change and its entry in ONE statement (one round trip: this is the hot
        path of every transfer and lock). A move that only adds creates the account if missing;
        any other move updates an existing account (whose available amount covers ``need``)."""
        if amount <= 0:
            raise LedgerError(f"amount must be positive, got {amount}")
        params = {
            "user_uid": user_uid,
            "currency": currency,
            "kind": kind,
            "amount": amount,
            "d_balance": d_balance,
            "d_held": d_held,
            "d_pending_out": d_pending_out,
            "hold_id": hold_id,
            "reference": reference,
            "need": need_available,
        }
        if need_available is not None:
            statement = _RESERVE
        elif min(d_balance, d_held, d_pending_out) >= 0:
            # PostgreSQL checks the proposed row before ON CONFLICT: only for additions.
            statement = _ADD
        else:
            statement = _UPDATE
        row = (await self.session.execute(statement, params)).one_or_none()
        if row is None:
            current = await self.balances(user_uid, currency)
            raise InsufficientFunds(user_uid, currency, need_available or amount, current.available)
        return Balances(user_uid, currency, *row)


def _hold(moved: tuple[Hold, Balances] | None) -> Hold | None:
    return None if moved is None else moved[0]


# A new hold, on an existing account only (the hold refers to it); no row back when the id is
# recorded already or the account is missing (``Ledger.reserve`` tells which).
_NEW_HOLD = select(Hold).from_statement(
    text(
        """
INSERT INTO holds
    (id, user_uid, currency, amount, status, project_id, reason, reference_id, expires_at)
SELECT CAST(:id AS varchar), CAST(:user_uid AS varchar), CAST(:currency AS varchar),
       CAST(:amount AS bigint), 'active', CAST(:project_id AS integer),
       CAST(:reason AS varchar), CAST(:reference_id AS varchar),
       CAST(:expires_at AS timestamptz)
WHERE EXISTS (
    SELECT 1 FROM ledger_accounts
    WHERE user_uid = CAST(:user_uid AS varchar) AND currency = CAST(:currency AS varchar)
)
ON CONFLICT (id) DO NOTHING
RETURNING *
"""
    )
)


# The entry is written only if the account row changed (it comes FROM the CTE's rows).
_ENTRY = """
, entry AS (
    INSERT INTO ledger_entries
        (user_uid, currency, kind, amount, d_balance, d_held, d_pending_out, hold_id, reference)
    SELECT :user_uid, :currency, :kind, :amount, :d_balance, :d_held, :d_pending_out,
           :hold_id, :reference
    FROM moved
)
SELECT balance, held, pending_out FROM moved
"""
_UPDATE_SQL = """
WITH moved AS (
    UPDATE ledger_accounts
    SET balance = balance + :d_balance, held = held + :d_held,
        pending_out = pending_out + :d_pending_out, updated_at = now()
    WHERE user_uid = :user_uid AND currency = :currency{need}
    RETURNING balance, held, pending_out
)"""
_UPDATE = text(_UPDATE_SQL.format(need="") + _ENTRY)
_RESERVE = text(
    _UPDATE_SQL.format(need="\n      AND balance - held - pending_out >= :need") + _ENTRY
)
_ADD = text(
    """
WITH moved AS (
    INSERT INTO ledger_accounts AS a (user_uid, currency, balance, held, pending_out)
    VALUES (:user_uid, :currency, :d_balance, :d_held, :d_pending_out)
    ON CONFLICT (user_uid, currency) DO UPDATE
    SET balance = a.balance + EXCLUDED.balance, held = a.held + EXCLUDED.held,
        pending_out = a.pending_out + EXCLUDED.pending_out, updated_at = now()
    RETURNING a.balance, a.held, a.pending_out
)"""
    + _ENTRY
)


# ``Ledger.begin_out_last``: the move (as ``_RESERVE``'s, for an outgoing transfer), then its
# entry as the guarded statement (a row only when the account moved), and the available amount
# as the refusal's detail, read only when refusing.
_BEGIN_OUT_MOVED = """moved AS (
    UPDATE ledger_accounts
    SET pending_out = pending_out + :amount, updated_at = now()
    WHERE user_uid = :user_uid AND currency = :currency
      AND balance - held - pending_out >= :amount
    RETURNING balance
)"""
_BEGIN_OUT = """
INSERT INTO ledger_entries
    (user_uid, currency, kind, amount, d_balance, d_held, d_pending_out, hold_id, reference)
SELECT :user_uid, :currency, 'begin_out', :amount, 0, 0, :amount, NULL, :reference
FROM moved
RETURNING 1
"""
_AVAILABLE_NOW = """
SELECT balance - held - pending_out FROM ledger_accounts
WHERE user_uid = :user_uid AND currency = :currency
FOR UPDATE
"""
