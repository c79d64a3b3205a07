"""Repository of chain write records (``chain_transactions`` + ``chain_tx_attempts``).

Like every repository it only flushes; the caller owns the commit. The one caller,
``ChainGateway``, commits itself because a signed transaction must be durable before it is
ever sent (see ``chain.gateway``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select, union, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.chain import ChainTransaction, ChainTxAttempt

# Statuses from which a write can still move; the others are final.
OPEN_STATUSES = ("signed", "sent", "landed")

# The columns a write record shares with its current attempt row: a re-sign replaces them all.
ATTEMPT_COLUMNS = ("attempt", "signature", "blockhash", "last_valid_block_height", "tx_bytes")


@dataclass(frozen=True)
class Signed:
    """One signed attempt of a write, as the gateway hands it to the store."""

    signature: str
    blockhash: str
    last_valid_block_height: int
    tx_bytes: bytes


def stamp(target: ChainTransaction | ChainTxAttempt, values: dict[str, Any]) -> None:
    """Set each named column on a row (the attempt columns travel as one group)."""
    for name, value in values.items():
        setattr(target, name, value)


def attempt_values(source: ChainTransaction | ChainTxAttempt) -> dict[str, Any]:
    return {name: getattr(source, name) for name in ATTEMPT_COLUMNS}


async def get(
    session: AsyncSession, op_key: str, *, for_update: bool = False
) -> ChainTransaction | None:
    stmt = select(ChainTransaction).where(ChainTransaction.op_key == op_key)
    if for_update:
        # Serialises deciders of one op_key: two processes must never both re-sign it.
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalar_one_or_none()


async def get_many(
    session: AsyncSession, op_keys: Sequence[str], *, for_update: bool = False
) -> list[ChainTransaction]:
    if not op_keys:
        return []
    stmt = (
        select(ChainTransaction)
        .where(ChainTransaction.op_key.in_(list(op_keys)))
        .order_by(ChainTransaction.id)  # one lock order for every caller: no deadlocks
    )
    if for_update:
        stmt = stmt.with_for_update()
    return list((await session.execute(stmt)).scalars())


async def attempts(session: AsyncSession, chain_tx_id: int) -> list[ChainTxAttempt]:
    stmt = (
        select(ChainTxAttempt)
        .where(ChainTxAttempt.chain_tx_id == chain_tx_id)
        .order_by(ChainTxAttempt.attempt)
    )
    return list((await session.execute(stmt)).scalars())


async def attempts_for(
    session: AsyncSession, chain_tx_ids: Sequence[int]
) -> dict[int, list[ChainTxAttempt]]:
    if not chain_tx_ids:
        return {}
    stmt = (
        select(ChainTxAttempt)
        .where(ChainTxAttempt.chain_tx_id.in_(list(chain_tx_ids)))
        .order_by(ChainTxAttempt.chain_tx_id, ChainTxAttempt.attempt)
    )
    out: dict[int, list[ChainTxAttempt]] = {}
    for attempt in (await session.execute(stmt)).scalars():
        out.setdefault(attempt.chain_tx_id, []).append(attempt)
    return out


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


async def insert(session: AsyncSession, row: ChainTransaction) -> ChainTransaction:
    """Insert a new write (the caller sets what it is) as attempt 1, signed and never sent,
    with its attempt row. Raises IntegrityError if op_key exists."""
    row.status, row.attempt, row.send_count = "signed", 1, 0
    session.add(row)
    await session.flush()
    await _add_current_attempt(session, row)
    return row


async def _add_current_attempt(session: AsyncSession, row: ChainTransaction) -> None:
    """The attempt row of the record's current signature (written before it is ever sent)."""
    session.add(ChainTxAttempt(chain_tx_id=row.id, status="signed", **attempt_values(row)))
    await session.flush()


async def add_attempt(session: AsyncSession, row: ChainTransaction, signed: Signed) -> None:
    """Mark the current attempt expired and make a freshly signed one current."""
    await set_attempt_status(session, row.id, row.attempt, "expired")
    row.attempt += 1
    stamp(row, asdict(signed))
    row.status = "signed"
    row.last_send_error = None
    await _add_current_attempt(session, row)


async def set_attempt_status(
    session: AsyncSession, chain_tx_id: int, attempt: int, status: str
) -> None:
    await session.execute(
        update(ChainTxAttempt)
        .where(ChainTxAttempt.chain_tx_id == chain_tx_id, ChainTxAttempt.attempt == attempt)
        .values(status=status)
    )


async def record_send(
    session: AsyncSession, op_key: str, signature: str, error: str | None, sent_at: Any
) -> None:
    """Count one broadcast of the current attempt; never downgrades a landed/final write."""
    values: dict[str, Any] = {
        "send_count": ChainTransaction.send_count + 1,
        "last_sent_at": sent_at,
        "last_send_error": error[:1000] if error else None,
    }
    await session.execute(
        update(ChainTransaction)
        .where(ChainTransaction.op_key == op_key, ChainTransaction.signature == signature)
        .values(**values)
    )
    await session.execute(
        update(ChainTransaction)
        .where(
            ChainTransaction.op_key == op_key,
            ChainTransaction.signature == signature,
            ChainTransaction.status == "signed",
        )
        .values(status="sent")
    )
    await session.execute(
        update(ChainTxAttempt)
        .where(ChainTxAttempt.signature == signature, ChainTxAttempt.status == "signed")
        .values(status="sent")
    )
