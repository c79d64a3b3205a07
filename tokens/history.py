"""A user's transactions: the ledger's balance movements joined with their chain signatures.

Only entries that changed the balance are listed (holds and reservations are not movements;
see ``/v1/funds/locked``). Each is booked after its transaction finalized, so every listed
transaction is ``completed``. Newest first: each movement has a dense position per account
(``ledger_movements``, kept by a trigger), so a page is a primary-key range at any depth and
the total is one row (``ledger_movement_counts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

_PAGE = text(
    """
WITH ids AS (
    SELECT entry_id AS id FROM ledger_movements
    WHERE user_uid = :uid AND currency = :currency AND seq BETWEEN :low AND :high
)
SELECT e.id, e.kind, e.amount, e.d_balance, e.reference, e.created_at,
       t.signature AS t_sig, t.from_uid, t.to_uid, t.lock_id,
       m.tx_signature AS m_sig, m.project_id AS m_project,
       d.signature AS d_sig, d.sender AS d_sender
FROM ids
JOIN ledger_entries e ON e.id = ids.id
LEFT JOIN transfers t ON t.id = e.reference
LEFT JOIN mining_activities m
       ON e.reference LIKE 'mining:%' AND m.id = substr(e.reference, 8)
LEFT JOIN deposits d
       ON e.reference LIKE 'deposit:%' AND d.signature = substr(e.reference, 9)
      AND d.user_uid = :uid AND d.currency = :currency
ORDER BY e.id DESC
"""
)
# Kept by a statement trigger on ledger_entries (migration 0012): no count over the rows.
_COUNT = text(
    "SELECT movements FROM ledger_movement_counts WHERE user_uid = :uid AND currency = :currency"
)


@dataclass(frozen=True)
class TokenTransaction:
    id: int
    type: str  # deposit | transfer_in | transfer_out | settlement_in | settlement_out |
    #            mining_reward | credit | debit
    direction: str  # in | out
    amount: int
    counterparty: str | None
    signature: str | None
    reference: str | None
    status: str
    created_at: datetime


async def page(
    session: AsyncSession, uid: str, currency: str, *, limit: int, offset: int
) -> tuple[list[TokenTransaction], int]:
    params = {"uid": uid, "currency": currency}
    total = int(await session.scalar(_COUNT, params) or 0)
    if offset >= total:
        return [], total
    # Newest first: positions total - offset down to total - offset - limit + 1.
    high = total - offset
    rows = (await session.execute(_PAGE, {**params, "low": high - limit + 1, "high": high})).all()
    out = []
    for r in rows:
        incoming = r.d_balance > 0
        direction = "in" if incoming else "out"
        counterparty: str | None = None
        signature: str | None = None
        if r.d_sig is not None:
            kind, counterparty, signature = "deposit", r.d_sender, r.d_sig
        elif r.t_sig is not None or r.from_uid is not None:
            prefix = "settlement" if r.lock_id else "transfer"
            kind = f"{prefix}_{direction}"
            counterparty = r.from_uid if incoming else r.to_uid
            signature = r.t_sig
        elif r.m_project is not None:
            kind, signature = "mining_reward", r.m_sig
            counterparty = f"project:{r.m_project}"
        else:
            kind = "credit" if incoming else "debit"
        out.append(
            TokenTransaction(
                id=r.id,
                type=kind,
                direction=direction,
                amount=abs(r.d_balance),
                counterparty=counterparty,
                signature=signature,
                reference=r.reference,
                status="completed",
                created_at=r.created_at,
            )
        )
    return out, total
