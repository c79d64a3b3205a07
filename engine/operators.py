"""Operator actions on transfers: find stuck ones, cancel one that can provably no longer land.

A transfer whose chain write may still land is never cancelled: only when it was never signed
(still ``pending``), or when no signature of its write landed and the finalized block height is
past the current attempt's ``lastValidBlockHeight``. The chain write is then closed as
``failed`` under its row lock, so no process can re-sign it afterwards.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from solana.rpc.async_api import AsyncClient
from solders.signature import Signature
from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from chain import tx_store
from chain.gateway import ChainGateway
from db.models.engine import Transfer
from engine import transfers
from engine.errors import invalid_state, not_found


async def stuck(session: AsyncSession, older_than: timedelta, limit: int = 100) -> list[Transfer]:
    cutoff = datetime.now(UTC) - older_than
    rows = await session.scalars(
        select(Transfer)
        .where(
            or_(
                (Transfer.status == "pending_onchain") & (Transfer.onchain_at < cutoff),
                (Transfer.status == "pending") & (Transfer.created_at < cutoff),
            )
        )
        .order_by(Transfer.created_at)
        .limit(limit)
    )
    return list(rows)


async def cancel(
    session: AsyncSession,
    gateway: ChainGateway,
    client: AsyncClient,
    transfer_id: str,
    reason: str,
    decimals: int,
) -> Transfer:
    """Cancel if and only if no signature can still land; raises Rejected (409) otherwise."""
    transfer = await session.get(Transfer, transfer_id, with_for_update=True)
    if transfer is None:
        raise not_found(f"Transfer {transfer_id}")
    if transfer.status == "pending":
        ended = await transfers.fail(
            session, transfer_id, reason, decimals=decimals,
            from_statuses=("pending",), to_status="cancelled",
        )  # fmt: skip
        assert ended is not None
        return ended
    if transfer.status != "pending_onchain" or transfer.op_key is None:
        raise invalid_state(f"Transfer {transfer_id} is {transfer.status}")
    row = await tx_store.get(session, transfer.op_key, for_update=True)
    if row is None:
        raise invalid_state(
            f"Transfer {transfer_id} is being signed right now; retry the cancel later"
        )
    if row.status in ("succeeded", "landed"):
        raise invalid_state(f"Transfer {transfer_id} landed on chain ({row.status})")
    if row.status != "failed":
        # Height first: once finalized height passed lastValidBlockHeight, "not found" is final.
        height = await gateway.block_height("finalized")
        attempts = await tx_store.attempts(session, row.id)
        resp = await client.get_signature_statuses(
            [Signature.from_string(a.signature) for a in attempts], search_transaction_history=True
        )
        if any(status is not None for status in resp.value):
            raise invalid_state(
                f"A signature of transfer {transfer_id} landed; it cannot be cancelled"
            )
        if height <= row.last_valid_block_height:
            raise invalid_state(
                f"Transfer {transfer_id} can still land until block height "
                f"{row.last_valid_block_height} is finalized (now {height})",
                last_valid_block_height=row.last_valid_block_height,
                finalized_block_height=height,
            )
        row.status = "failed"
        row.err = {"operator_cancelled": reason[:200]}
        row.completed_at = datetime.now(UTC)
        for attempt in attempts:
            await tx_store.set_attempt_status(session, row.id, attempt.attempt, "expired")
    ended = await transfers.fail(
        session, transfer_id, reason, decimals=decimals,
        from_statuses=("pending_onchain",), to_status="cancelled",
    )  # fmt: skip
    assert ended is not None
    return ended
