"""The transaction engine: transfers with their state history, amount-limit usage per UTC day,
and reconciliation drift reports. Fund locks are ledger holds (db.models.ledger.Hold)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    String,
    Uuid,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from db.base import (
    Base,
    CreatedAt,
    CurrencyCode,
    IdentityPk,
    StateHistoryMixin,
    UpdatedAt,
    UserUid,
)

# pending -> pending_onchain -> completed; or failed; or cancelled (only from pending).
TRANSFER_STATUSES = ("pending", "pending_onchain", "completed", "failed", "cancelled")
FINAL_TRANSFER_STATUSES = ("completed", "failed", "cancelled")
LIMIT_OPERATIONS = ("fund_lock", "transfer", "mining")


class SettledOnChain:
    """What a record settled by one chain write keeps (a transfer, a withdrawal): why it
    failed, its workflow and the audit row of its request, the write that carries it
    (``chain_transactions.op_key``) and where that landed, and when it moved."""

    failure_reason: Mapped[str | None] = mapped_column(String(500))
    workflow_id: Mapped[str | None] = mapped_column(String(200))
    audit_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    op_key: Mapped[str | None] = mapped_column(String(200))
    signature: Mapped[str | None] = mapped_column(String(88))
    slot: Mapped[int | None]
    block_height: Mapped[int | None]
    created_at: Mapped[CreatedAt]
    updated_at: Mapped[UpdatedAt]
    onchain_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class Transfer(SettledOnChain, Base):
    __tablename__ = "transfers"
    __table_args__ = (
        CheckConstraint(f"status IN {TRANSFER_STATUSES!r}", name="status"),
        CheckConstraint("amount > 0", name="amount_positive"),
        CheckConstraint("from_uid <> to_uid", name="distinct_parties"),
        Index("ix_transfers_status_onchain", "status", "onchain_at"),
        Index("ix_transfers_project", "project_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    project_id: Mapped[int]
    transfer_type: Mapped[str] = mapped_column(String(64))
    from_uid: Mapped[UserUid]
    to_uid: Mapped[UserUid]
    currency: Mapped[CurrencyCode]
    amount: Mapped[int]
    status: Mapped[str] = mapped_column(String(20), default="pending")
    lock_id: Mapped[str | None] = mapped_column(String(64))
    reference: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    requires_onchain: Mapped[bool] = mapped_column(Boolean, default=True)
    # The UTC day whose amount-limit usage counted this transfer (released if it fails).
    limit_day: Mapped[date] = mapped_column(Date)


class TransferState(StateHistoryMixin, Base):
    """Append-only history of a transfer's states."""

    __tablename__ = "transfer_states"
    __table_args__ = (Index("ix_transfer_states_transfer", "transfer_id", "id"),)

    transfer_id: Mapped[str] = mapped_column(String(64), ForeignKey("transfers.id"))


class LimitUsage(Base):
    """Amount counted against a project's per-day limit (one row per project, currency,
    operation and UTC day), changed only by conditional UPDATEs."""

    __tablename__ = "limit_usage"
    __table_args__ = (
        CheckConstraint("used >= 0", name="used_nonneg"),
        CheckConstraint(f"operation IN {LIMIT_OPERATIONS!r}", name="operation"),
    )

    project_id: Mapped[int] = mapped_column(primary_key=True)
    currency: Mapped[CurrencyCode] = mapped_column(primary_key=True)
    operation: Mapped[str] = mapped_column(String(16), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    used: Mapped[int] = mapped_column(default=0, server_default="0")
    updated_at: Mapped[UpdatedAt]


class ReconciliationDrift(Base):
    """A custody account whose finalized on-chain balance differs from the ledger balance."""

    __tablename__ = "reconciliation_drifts"
    __table_args__ = (Index("ix_reconciliation_drifts_run", "run_id"),)

    id: Mapped[IdentityPk]
    run_id: Mapped[str] = mapped_column(String(64))
    user_uid: Mapped[UserUid]
    currency: Mapped[CurrencyCode]
    address: Mapped[str] = mapped_column(String(44))
    chain_balance: Mapped[int]
    ledger_balance: Mapped[int]
    # chain - ledger, in base units.
    drift: Mapped[int]
    created_at: Mapped[CreatedAt]
