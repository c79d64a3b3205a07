"""The ledger: per (user, currency) books, two-phase holds, and an append-only entry log.

Invariants are enforced by PostgreSQL itself (check constraints, conditional updates, a
trigger refusing UPDATE/DELETE on entries), so they hold under any concurrency:
- balance, held and pending_out are never negative, and available = balance - held -
  pending_out is never negative;
- a hold's amount is positive and it is resolved (posted, voided or expired) exactly once;
- every change of an account is one entry row whose deltas sum to the account.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKeyConstraint,
    Index,
    String,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, CreatedAt, CurrencyCode, IdentityPk, UpdatedAt, UserUid

CURRENCIES = ("MCC", "MCD")
HOLD_STATUSES = ("active", "posted", "voided", "expired")
ENTRY_KINDS = (
    "credit",  # funds arrived in custody (mint or incoming transfer, finalized)
    "hold",  # a fund lock reserved funds
    "void",  # a hold released (unlock, or its transfer failed before posting)
    "expire",  # a hold released by its timer
    "post",  # a hold consumed by a settlement transfer: now outgoing pending
    "begin_out",  # an outgoing transfer reserved funds without a hold
    "cancel_out",  # an outgoing transfer failed or was cancelled: funds available again
    "debit",  # an outgoing transfer finalized: funds left custody
)


class LedgerAccount(Base):
    __tablename__ = "ledger_accounts"
    __table_args__ = (
        CheckConstraint(f"currency IN {CURRENCIES!r}", name="currency"),
        CheckConstraint("balance >= 0", name="balance_nonneg"),
        CheckConstraint("held >= 0", name="held_nonneg"),
        CheckConstraint("pending_out >= 0", name="pending_out_nonneg"),
        CheckConstraint("balance - held - pending_out >= 0", name="available_nonneg"),
    )

    user_uid: Mapped[UserUid] = mapped_column(primary_key=True)
    currency: Mapped[CurrencyCode] = mapped_column(primary_key=True)
    balance: Mapped[int] = mapped_column(default=0, server_default="0")
    held: Mapped[int] = mapped_column(default=0, server_default="0")
    pending_out: Mapped[int] = mapped_column(default=0, server_default="0")
    updated_at: Mapped[UpdatedAt]

    @property
    def available(self) -> int:
        return self.balance - self.held - self.pending_out


class Hold(Base):
    __tablename__ = "holds"
    __table_args__ = (
        CheckConstraint(f"status IN {HOLD_STATUSES!r}", name="status"),
        CheckConstraint("amount > 0", name="amount_positive"),
        # An active hold is unresolved; a resolved one records when.
        CheckConstraint("(status = 'active') = (resolved_at IS NULL)", name="resolved_once"),
        ForeignKeyConstraint(
            ["user_uid", "currency"], ["ledger_accounts.user_uid", "ledger_accounts.currency"]
        ),
        Index("ix_holds_active_user", "user_uid", "currency", postgresql_where="status = 'active'"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_uid: Mapped[UserUid]
    currency: Mapped[CurrencyCode]
    amount: Mapped[int]
    status: Mapped[str] = mapped_column(String(16), default="active", server_default="active")
    project_id: Mapped[int | None]
    reason: Mapped[str | None] = mapped_column(String(100))
    reference_id: Mapped[str | None] = mapped_column(String(200))
    expires_at: Mapped[datetime | None]
    created_at: Mapped[CreatedAt]
    resolved_at: Mapped[datetime | None]
    resolution: Mapped[str | None] = mapped_column(String(200))


class LedgerEntry(Base):
    """Append-only: a trigger refuses UPDATE and DELETE (migration 0004)."""

    __tablename__ = "ledger_entries"
    __table_args__ = (
        CheckConstraint(f"kind IN {ENTRY_KINDS!r}", name="kind"),
        CheckConstraint("amount > 0", name="amount_positive"),
        ForeignKeyConstraint(
            ["user_uid", "currency"], ["ledger_accounts.user_uid", "ledger_accounts.currency"]
        ),
        Index("ix_ledger_entries_account", "user_uid", "currency", "id"),
        # The public token statistics' 24 h / 30 d volume (tokens/stats.py): credits of one
        # currency by time, the amounts in the index (migration 0025).
        Index(
            "ix_ledger_entries_credits",
            "currency",
            "created_at",
            postgresql_include=["d_balance"],
            postgresql_where=text("d_balance > 0"),
        ),
    )

    id: Mapped[IdentityPk]
    user_uid: Mapped[UserUid]
    currency: Mapped[CurrencyCode]
    kind: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int]
    # Signed effects on the account's three books; their sums equal the account row.
    d_balance: Mapped[int] = mapped_column(default=0)
    d_held: Mapped[int] = mapped_column(default=0)
    d_pending_out: Mapped[int] = mapped_column(default=0)
    hold_id: Mapped[str | None] = mapped_column(String(64))
    # What caused it: a transfer id, a mining activity id, an op key.
    reference: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[CreatedAt]
