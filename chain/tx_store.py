"""Queries of chain write records (``chain_transactions`` + ``chain_tx_attempts``): they only
read. Every change to a record is ``chain.write_record.WriteRecord``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, union
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.chain import ChainTransaction, ChainTxAttempt

# Statuses from which a write can still move; the others are final.
OPEN_STATUSES = ("signed", "sent", "landed")


async def records(
    session: AsyncSession, op_keys: Sequence[str], *, for_update: bool = False
) -> list[tuple[ChainTransaction, list[ChainTxAttempt]]]:
    """The rows of ``op_keys`` that exist (in id order), each with its attempts (in attempt
    order). ``for_update`` locks the rows: it serialises the deciders of one op_key, so two
    processes never both re-sign it; the one order keeps lockers of several from deadlocking."""
    if not op_keys:
        return []
    stmt = (
        select(ChainTransaction)
        .where(ChainTransaction.op_key.in_(list(op_keys)))
        .order_by(ChainTransaction.id)
    )
    if for_update:
        stmt = stmt.with_for_update()
    rows = list((await session.execute(stmt)).scalars())
    if not rows:
        return []
    attempts: dict[int, list[ChainTxAttempt]] = {row.id: [] for row in rows}
    found = await session.scalars(
        select(ChainTxAttempt)
        .where(ChainTxAttempt.chain_tx_id.in_(list(attempts)))
        .order_by(ChainTxAttempt.chain_tx_id, ChainTxAttempt.attempt)
    )
    for attempt in found:
        attempts[attempt.chain_tx_id].append(attempt)
    return [(row, attempts[row.id]) for row in rows]


async def known_signatures(session: AsyncSession, signatures: Sequence[str]) -> set[str]:
    """The ``signatures`` that are the gateway's own: of any attempt of any write, current or
    expired (a transaction this gateway signed, whatever became of it)."""
    if not signatures:
        return set()
    wanted = list(signatures)
    stmt = union(
        select(ChainTxAttempt.signature).where(ChainTxAttempt.signature.in_(wanted)),
        select(ChainTransaction.signature).where(ChainTransaction.signature.in_(wanted)),
    )
    return set((await session.execute(stmt)).scalars())


async def list_open(session: AsyncSession, limit: int = 256) -> list[str]:
    """op_keys of writes not yet final (for a sweeper that finishes abandoned writes)."""
    stmt = (
        select(ChainTransaction.op_key)
        .where(ChainTransaction.status.in_(OPEN_STATUSES))
        .order_by(ChainTransaction.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def fees_since(session: AsyncSession, since: datetime) -> int:
    """Lamports the writes settled since ``since`` paid (the fees' daily budget)."""
    total = await session.scalar(
        select(func.coalesce(func.sum(ChainTransaction.fee_lamports), 0)).where(
            ChainTransaction.completed_at >= since
        )
    )
    return int(total or 0)
