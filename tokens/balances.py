"""A user's custody balances, served from the ledger's mirror of the chain.

``total`` is the ledger's ``balance``: the finalized on-chain balance of the custody account as
the gateway has booked it (its own finalized movements, and deposits once the watcher has seen
them finalized); reconciliation checks it against the chain. ``frozen``/``locked`` is the sum of
active holds; ``available = total - held - outgoing pending``. No chain call on this path.
``updated_at`` is when the booked balance last changed; a user with no movement yet has a zero
balance as of the reading, which is its time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

_BOOKS = text(
    "SELECT balance, held, pending_out, updated_at FROM ledger_accounts "
    "WHERE user_uid = :u AND currency = :c"
)


@dataclass(frozen=True)
class CustodyBalance:
    uid: str
    currency: str
    total: int
    held: int
    pending_out: int
    updated_at: datetime  # the last change; with no movement yet, the reading's time

    @property
    def available(self) -> int:
        return self.total - self.held - self.pending_out


async def load(session: AsyncSession, uid: str, currency: str) -> CustodyBalance:
    row = (await session.execute(_BOOKS, {"u": uid, "c": currency})).one_or_none()
    if row is None:
        return CustodyBalance(uid, currency, 0, 0, 0, datetime.now(UTC))
    return CustodyBalance(uid, currency, row[0], row[1], row[2], row[3].astimezone(UTC))
