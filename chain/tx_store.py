"""Queries of chain write records (``chain_transactions`` + ``chain_tx_attempts``): they only
read. Every change to a record is ``chain.write_record.WriteRecord``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import bindparam, func, select, union
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.chain import ChainTransaction, ChainTxAttempt

# Statuses from which a write can still move; the others are final.
OPEN_STATUSES = ("signed", "sent", "landed")


# Built once (its construction and cache key would cost more than its share of the execution).
_RECORDS = (
    select(ChainTransaction, ChainTxAttempt)
    .outerjoin(ChainTxAttempt, ChainTxAttempt.chain_tx_id == ChainTransaction.id)
    .where(ChainTransaction.op_key.in_(bindparam("op_keys", expanding=True)))
    .order_by(ChainTransaction.id, ChainTxAttempt.attempt)
)
_RECORDS_LOCKED = _RECORDS.with_for_update(of=ChainTransaction)
# ``known_signatures``' (the deposit watcher asks it for every block that touches a custody
# account, the gateway's own writes' blocks included).
_KNOWN = union(
    select(ChainTxAttempt.signature).where(
        ChainTxAttempt.signature.in_(bindparam("signatures", expanding=True))
    ),
    select(ChainTransaction.signature).where(
        ChainTransaction.signature.in_(bindparam("signatures", expanding=True))
    ),
)


async def records(
    session: AsyncSession, op_keys: Sequence[str], *, for_update: bool = False
) -> list[tuple[ChainTransaction, list[ChainTxAttempt]]]:
    """The rows of ``op_keys`` that exist (in id order), each with its attempts (in attempt
    order). ``for_update`` locks the rows: it serialises the deciders of one op_key, so two
    processes never both re-sign it; the one order keeps lockers of several from deadlocking."""
    if not op_keys:
        return []
    # One statement: the rows and their attempts joined (a record has one attempt, or a few).
    stmt = _RECORDS_LOCKED if for_update else _RECORDS
    found: dict[int, tuple[ChainTransaction, list[ChainTxAttempt]]] = {}
    for row, attempt in await session.execute(stmt, {"op_keys": list(op_keys)}):
        attempts = found.setdefault(row.id, (row, []))[1]
        if attempt is not None:
            attempts.append(attempt)
    # A row locked after waiting for another decider is read as that one committed it, but
    # the attempts joined to it as they were when the statement began: a re-sign committed
    # meanwhile (a new current attempt) is missing. Read again under the lock, they are all
    # there (a re-sign is the only move that adds an attempt, and it moves the row's).
    stale = [row.id for row, attempts in found.values() if row.attempt not in _numbers(attempts)]
    if stale:
        for row_id in stale:
            found[row_id][1].clear()
        fresh = await session.scalars(
            select(ChainTxAttempt)
            .where(ChainTxAttempt.chain_tx_id.in_(stale))
            .order_by(ChainTxAttempt.chain_tx_id, ChainTxAttempt.attempt)
            .execution_options(populate_existing=True)
        )
        for attempt in fresh:
            found[attempt.chain_tx_id][1].append(attempt)
    return list(found.values())


def _numbers(attempts: Sequence[ChainTxAttempt]) -> set[int]:
    return {a.attempt for a in attempts}


async def known_signatures(session: AsyncSession, signatures: Sequence[str]) -> set[str]:
    """The ``signatures`` that are the gateway's own: of any attempt of any write, current or
    expired (a transaction this gateway signed, whatever became of it)."""
    if not signatures:
        return set()
    return set((await session.execute(_KNOWN, {"signatures": list(signatures)})).scalars())


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
