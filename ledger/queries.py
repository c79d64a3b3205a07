"""Read-only questions about the ledger's accounts that other packages ask (no writes here)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import exists, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from db.models.ledger import LedgerAccount


async def accounts_without(
    session: AsyncSession,
    user_uid: InstrumentedAttribute[Any],
    currency: InstrumentedAttribute[Any],
) -> list[tuple[str, str]]:
    """(user, currency) of every ledger account that no row of the other table names by its
    ``user_uid`` and ``currency`` columns (e.g. the custody accounts not watched yet)."""
    named = exists().where(user_uid == LedgerAccount.user_uid, currency == LedgerAccount.currency)
    rows = await session.execute(
        select(LedgerAccount.user_uid, LedgerAccount.currency).where(~named)
    )
    return [(str(uid), str(cur)) for uid, cur in rows.all()]
