"""Give a user real funds: mint into their custody account on chain, then credit the ledger
the same amount, each exactly once per ``op_key``. Dev seed, benchmarks and tests only: money
made from nothing, so it lives with the dev world, never in the product (which never imports
``devchain``)."""

from __future__ import annotations

import zlib

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.gateway import ChainGateway
from db.models.ledger import LedgerEntry
from ledger.service import Ledger


async def fund_user(
    gateway: ChainGateway,
    sessions: async_sessionmaker[AsyncSession],
    *,
    uid: str,
    currency: str,
    amount: int,
    op_key: str,
) -> bool:
    """Mint ``amount`` base units to ``uid`` and credit the ledger once it is finalized.
    Idempotent per ``op_key``; returns False when this op_key was already credited."""
    await gateway.ensure_custody_account(uid, currency)
    await gateway.mint(op_key, uid, amount, currency=currency)
    async with sessions() as session:
        # Serialise concurrent callers of the same op_key; the entry is the "done" marker.
        await session.execute(
            text("SELECT pg_advisory_xact_lock(:k)"), {"k": zlib.crc32(op_key.encode())}
        )
        done = await session.scalar(
            select(LedgerEntry.id).where(
                LedgerEntry.kind == "credit", LedgerEntry.reference == op_key[:200]
            )
        )
        if done is not None:
            return False
        await Ledger(session).credit(uid, currency, amount, op_key[:200])
        await session.commit()
    return True
