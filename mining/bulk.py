"""Set-based, flush-only writes for a batch of mining activities: a few statements for the
whole batch instead of several per activity. Each keeps the invariant of its per-item
counterpart (named in its docstring); the caller commits, once.

``credit_many`` and ``emit_many`` are the batch forms of ``ledger.service.Ledger.credit`` and
``events.outbox.emit``; they live here because mining is their only batch caller so far.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, cast

from sqlalchemy import BigInteger, String, Table, column, select, update, values
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from db.base import Base
from db.models.events import EVENT_TYPES, Event
from db.models.ledger import LedgerAccount, LedgerEntry
from db.models.mining import MiningProof
from engine import limits


def table_of(model: type[Base]) -> Table:
    """A model's table, for Core statements executed with a parameter list (executemany /
    insertmanyvalues: one compiled statement whatever the values)."""
    return cast(Table, model.__table__)


@dataclass(frozen=True)
class Credit:
    user_uid: str
    amount: int
    reference: str


async def claim_proofs(session: AsyncSession, claims: Sequence[tuple[str, str]]) -> set[str]:
    """Consume proof hashes for activities: ``claims`` is ``[(proof_hash, activity_id)]`` in
    priority order. Returns the activity ids that own their proof (a proof is consumed once:
    ``mining_proofs`` primary key; an earlier claimant, committed or earlier in the list,
    wins). Idempotent: an activity that already owns its proof owns it again."""
    if not claims:
        return set()
    first: dict[str, str] = {}
    for digest, activity_id in claims:
        first.setdefault(digest, activity_id)
    await session.execute(
        insert(table_of(MiningProof)).on_conflict_do_nothing(index_elements=["proof_hash"]),
        [{"proof_hash": d, "activity_id": a} for d, a in first.items()],
    )
    found = await session.execute(
        select(MiningProof.proof_hash, MiningProof.activity_id).where(
            MiningProof.proof_hash.in_(list(first))
        )
    )
    owners = {digest: owner for digest, owner in found}
    return {activity_id for digest, activity_id in claims if owners.get(digest) == activity_id}


async def emit_many(session: AsyncSession, events: Sequence[dict[str, Any]]) -> None:
    """Record events (``{id, project_id, type, data}``) in the caller's transaction with one
    INSERT; an id already recorded is left as it is (a retried emit is a no-op, as ``emit``)."""
    if not events:
        return
    unknown = {e["type"] for e in events} - set(EVENT_TYPES)
    if unknown:
        raise ValueError(f"unknown event type(s) {sorted(unknown)!r}")
    now = datetime.now(UTC)
    await session.execute(
        insert(table_of(Event)).on_conflict_do_nothing(index_elements=["id"]),
        [{**e, "created_at": now} for e in events],
    )


async def credit_many(session: AsyncSession, currency: str, credits: Sequence[Credit]) -> None:
    """``Ledger.credit`` for many credits: one entry per credit (its own reference) and one
    UPDATE adding each account's total, so every account row still equals the sum of its
    entries. Accounts are locked in user order (one order for every caller: no deadlocks)."""
    if not credits:
        return
    for c in credits:
        if c.amount <= 0:
            raise ValueError(f"amount must be positive, got {c.amount}")
    totals: dict[str, int] = defaultdict(int)
    for c in credits:
        totals[c.user_uid] += c.amount
    users = sorted(totals)
    await session.execute(
        insert(table_of(LedgerAccount)).on_conflict_do_nothing(
            index_elements=["user_uid", "currency"]
        ),
        [{"user_uid": uid, "currency": currency} for uid in users],
    )
    await session.execute(
        select(LedgerAccount.user_uid)
        .where(LedgerAccount.user_uid.in_(users), LedgerAccount.currency == currency)
        .order_by(LedgerAccount.user_uid)
        .with_for_update()
    )
    added = values(column("user_uid", String), column("amount", BigInteger), name="added").data(
        [(uid, totals[uid]) for uid in users]
    )
    await session.execute(
        update(LedgerAccount)
        .where(LedgerAccount.user_uid == added.c.user_uid, LedgerAccount.currency == currency)
        .values(
            balance=LedgerAccount.balance + sql_cast(added.c.amount, BigInteger),
            updated_at=datetime.now(UTC),
        )
    )
    await session.execute(
        insert(table_of(LedgerEntry)),
        [
            {
                "user_uid": c.user_uid,
                "currency": currency,
                "kind": "credit",
                "amount": c.amount,
                "d_balance": c.amount,
                "d_held": 0,
                "d_pending_out": 0,
                "hold_id": None,
                "reference": c.reference,
            }
            for c in credits
        ],
    )


async def release_counted(
    session: AsyncSession, counted: Sequence[tuple[int, date, int]], currency: str = "MCD"
) -> None:
    """Give back mining limit usage, ``counted`` = ``[(project_id, reward_day, amount)]``: one
    ``engine.limits.release`` per project and day, in one order."""
    sums: dict[tuple[int, date], int] = defaultdict(int)
    for project_id, day, amount in counted:
        sums[(project_id, day)] += amount
    for (project_id, day), amount in sorted(sums.items()):
        if amount > 0:
            await limits.release(
                session, project_id=project_id, currency=currency, operation="mining",
                amount=amount, day=day,
            )  # fmt: skip
