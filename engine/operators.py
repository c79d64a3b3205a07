"""Operator actions on transfers (flush-only, like every service): find stuck ones, re-check a
stuck one's chain write, cancel one that can provably no longer land. ``api.operations`` calls
these for the admin API and the operator console alike; it audits each action
(``events.audit.audit_action``), commits, and starts a workflow where one is needed.

A transfer whose chain write may still land is never cancelled: only when it was never signed
(still ``pending``), or when no signature of its write landed and the finalized block height is
past the current attempt's ``lastValidBlockHeight``. The gateway decides that and closes the
chain write (``ChainGateway.abandon``: the rule of chain/writes.py, in this transaction).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from chain.decimals import TokenDecimals
from chain.errors import ChainError, StillLandable, UnknownChainWrite, WriteLanded
from chain.gateway import ChainGateway, ChainWrite
from core.errors import InvalidState, NotFound, ServiceUnavailable
from db.models.engine import ReconciliationDrift, Transfer
from engine import transfers

ACTIONABLE = ("pending", "pending_onchain")
TRANSFER_VIEWS = ("stuck", "failed", "cancelled", "pending", "pending_onchain", "completed", "all")


def _stuck(older_than: timedelta) -> ColumnElement[bool]:
    """Pending on chain (or never signed) for longer than ``older_than``."""
    cutoff = datetime.now(UTC) - older_than
    return or_(
        (Transfer.status == "pending_onchain") & (Transfer.onchain_at < cutoff),
        (Transfer.status == "pending") & (Transfer.created_at < cutoff),
    )


async def stuck(session: AsyncSession, older_than: timedelta, limit: int = 100) -> list[Transfer]:
    rows = await session.scalars(
        select(Transfer).where(_stuck(older_than)).order_by(Transfer.created_at).limit(limit)
    )
    return list(rows)


def listing(view: str, older_than: timedelta, q: str = "") -> Select[Any]:
    """Transfers of a view ("stuck": the rule of ``stuck``), by id, user or project."""
    statement = select(Transfer)
    if view == "stuck":
        statement = statement.where(_stuck(older_than))
    elif view in TRANSFER_VIEWS and view != "all":
        statement = statement.where(Transfer.status == view)
    if term := q.strip():
        clauses: list[Any] = [
            Transfer.id == term,
            Transfer.from_uid == term,
            Transfer.to_uid == term,
        ]
        if term.isascii() and term.isdecimal():
            clauses.append(Transfer.project_id == int(term))
        statement = statement.where(or_(*clauses))
    return statement


def drifts(run_id: str = "", currency: str = "", uid: str = "") -> Select[Any]:
    """Reconciliation drifts of a run, a currency, a user (each filter optional)."""
    statement = select(ReconciliationDrift)
    if run_id:
        statement = statement.where(ReconciliationDrift.run_id == run_id)
    if currency in ("MCC", "MCD"):
        statement = statement.where(ReconciliationDrift.currency == currency)
    if uid:
        statement = statement.where(ReconciliationDrift.user_uid == uid)
    return statement


NEWEST_DRIFTS_FIRST = [ReconciliationDrift.id.desc()]


async def chain_write(gateway: ChainGateway, op_key: str) -> ChainWrite | None:
    """The chain write of ``op_key`` as the gateway holds it (None when there is none)."""
    try:
        return await gateway.get_write(op_key)
    except UnknownChainWrite:
        return None


async def chain_view(gateway: ChainGateway, transfer: Transfer) -> dict[str, Any] | None:
    """The transfer's chain write, as plain values (None when it has none)."""
    return await write_view(gateway, transfer.op_key)


async def write_view(gateway: ChainGateway, op_key: str | None) -> dict[str, Any] | None:
    """The chain write ``op_key`` (a transfer's, a withdrawal's), as plain values (None when
    there is none)."""
    if op_key is None or (write := await chain_write(gateway, op_key)) is None:
        return None
    return {
        "status": write.status,
        "signature": write.signature,
        "attempt": write.attempt,
        "send_count": write.send_count,
        "last_valid_block_height": write.last_valid_block_height,
        "confirmation_status": write.confirmation_status,
    }


@dataclass(frozen=True)
class Retry:
    transfer: Transfer
    chain_write: dict[str, Any] | None  # status and signature after the re-check


async def retry(session: AsyncSession, gateway: ChainGateway, transfer_id: str) -> Retry:
    """Re-check (and re-send exactly the same) chain write of a transfer still in flight; the
    caller then restarts its workflow if it is gone."""
    transfer = await session.get(Transfer, transfer_id)
    if transfer is None:
        raise NotFound(f"Transfer {transfer_id} not found")
    if transfer.status not in ACTIONABLE:
        raise InvalidState(f"Transfer {transfer_id} is {transfer.status}; nothing to retry")
    chain = None
    if transfer.op_key is not None and transfer.status == "pending_onchain":
        chain = await recheck(gateway, transfer.op_key)
    return Retry(transfer, chain)


async def recheck(gateway: ChainGateway, op_key: str) -> dict[str, Any] | None:
    """One step of the write ``op_key`` from the chain's answer (``advance``: the same bytes
    re-sent, or re-signed only after provable expiry); its status and signature after it, None
    when no write is recorded yet. 503 while the chain is unreachable."""
    try:
        write = await gateway.advance(op_key)
    except UnknownChainWrite:
        return None
    except ChainError as exc:
        raise ServiceUnavailable(f"The chain is unreachable: {exc}") from exc
    return {"status": write.status, "signature": write.signature}


async def cancel(
    session: AsyncSession,
    gateway: ChainGateway,
    transfer_id: str,
    reason: str,
    decimals: TokenDecimals,
) -> Transfer:
    """Cancel if and only if no signature can still land; InvalidState (409) otherwise."""
    transfer = await session.get(Transfer, transfer_id, with_for_update=True)
    if transfer is None:
        raise NotFound(f"Transfer {transfer_id} not found")
    if transfer.status == "pending":
        return await transfers.cancel_pending(session, transfer_id, reason, decimals=decimals)
    if transfer.status != "pending_onchain" or transfer.op_key is None:
        raise InvalidState(f"Transfer {transfer_id} is {transfer.status}")
    try:
        await gateway.abandon(session, transfer.op_key, reason)
    except UnknownChainWrite as exc:
        raise InvalidState(
            f"Transfer {transfer_id} is being signed right now; retry the cancel later"
        ) from exc
    except WriteLanded as exc:
        raise InvalidState(
            f"Transfer {transfer_id} landed on chain; it cannot be cancelled"
        ) from exc
    except StillLandable as exc:
        raise InvalidState(
            f"Transfer {transfer_id} can still land until block height {exc.last_valid} is "
            f"finalized (now {exc.height})",
            last_valid_block_height=exc.last_valid,
            finalized_block_height=exc.height,
        ) from exc
    except ChainError as exc:
        raise ServiceUnavailable(f"The chain is unreachable: {exc}") from exc
    ended = await transfers.fail(
        session, transfer_id, reason, decimals=decimals,
        from_statuses=("pending_onchain",), to_status="cancelled",
    )  # fmt: skip
    assert ended is not None  # the row is locked in pending_onchain
    return ended
