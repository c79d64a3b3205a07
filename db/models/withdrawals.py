"""Withdrawals: a user's money out of custody to the wallet of their profile, with its state
history, the administrators' decisions on it, and the deployment's outflow breaker. The ledger
side is a hold (``holds.id`` = the withdrawal's id) from acceptance until the chain's outcome."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    SmallInteger,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import (
    Base,
    CreatedAt,
    CurrencyCode,
    StateHistoryMixin,
    UpdatedAt,
    UserUid,
)
from db.models.engine import SettledOnChain

# pending (waiting for its approvals, cooling-off or breaker, then ready) -> pending_onchain
# (claimed for its chain write: no cancel any more) -> completed | failed; pending ->
# cancelled (the user, an operator, its deadline, a wallet change) | rejected (an admin).
WITHDRAWAL_STATUSES = ("pending", "pending_onchain", "completed", "failed", "cancelled", "rejected")
FINAL_WITHDRAWAL_STATUSES = ("completed", "failed", "cancelled", "rejected")
# Ended without moving money: not counted against the daily limit or the hourly outflow.
UNMOVED_WITHDRAWAL_STATUSES = ("failed", "cancelled", "rejected")
DECISIONS = ("approve", "reject")


class Withdrawal(SettledOnChain, Base):
    __tablename__ = "withdrawals"
    __table_args__ = (
        CheckConstraint(f"status IN {WITHDRAWAL_STATUSES!r}", name="status"),
        CheckConstraint("amount > 0", name="amount_positive"),
        CheckConstraint("approvals_required BETWEEN 0 AND 2", name="approvals_required"),
        Index("ix_withdrawals_user", "user_uid", "created_at"),
        Index("ix_withdrawals_currency", "currency", "created_at"),
        Index("ix_withdrawals_status", "status", "updated_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_uid: Mapped[UserUid]
    # The project whose client the user's token came from (its events go there); None for the
    # gateway's own client.
    project_id: Mapped[int | None]
    client_id: Mapped[str | None] = mapped_column(String(64))
    currency: Mapped[CurrencyCode]
    amount: Mapped[int]
    status: Mapped[str] = mapped_column(String(20), default="pending")
    # The profile's wallet when the withdrawal was made, and its associated token account for
    # the currency's mint (created by the gateway in the same transaction if missing).
    wallet_address: Mapped[str] = mapped_column(String(64))
    destination: Mapped[str] = mapped_column(String(64))
    # What it waits for: this many administrators' approvals, the wallet's cooling-off, the
    # breaker (until an operator resets it); past ``wait_deadline`` it is cancelled.
    approvals_required: Mapped[int] = mapped_column(SmallInteger, default=0)
    held_by_breaker: Mapped[bool] = mapped_column(Boolean, default=False)
    cooling_off_until: Mapped[datetime | None]
    wait_deadline: Mapped[datetime]
    # Set by its workflow's first step: the recovery sweep starts only workflows never seen.
    workflow_seen_at: Mapped[datetime | None]


class WithdrawalState(StateHistoryMixin, Base):
    """Append-only history of a withdrawal's states (and who moved it, for a person's act)."""

    __tablename__ = "withdrawal_states"
    __table_args__ = (Index("ix_withdrawal_states_withdrawal", "withdrawal_id", "id"),)

    withdrawal_id: Mapped[str] = mapped_column(String(64), ForeignKey("withdrawals.id"))


class WithdrawalDecision(Base):
    """One administrator's decision on a withdrawal (at most one each: two approvals are two
    different administrators)."""

    __tablename__ = "withdrawal_decisions"
    __table_args__ = (CheckConstraint(f"decision IN {DECISIONS!r}", name="decision"),)

    withdrawal_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("withdrawals.id"), primary_key=True
    )
    admin_uid: Mapped[UserUid] = mapped_column(primary_key=True)
    decision: Mapped[str] = mapped_column(String(10))
    reason: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[CreatedAt]


class WithdrawalBreaker(Base):
    """The deployment's one outflow breaker (a single row, id 1): tripped when a withdrawal
    would take the last hour's outflow of its currency over the limit; every withdrawal made
    while it is tripped waits until an operator resets it. Every accept locks this row, so the
    sums it is judged by are exact."""

    __tablename__ = "withdrawal_breaker"
    __table_args__ = (CheckConstraint("id = 1", name="single_row"),)

    id: Mapped[int] = mapped_column(SmallInteger, primary_key=True, default=1)
    tripped: Mapped[bool] = mapped_column(Boolean, default=False)
    tripped_at: Mapped[datetime | None]
    tripped_by: Mapped[str | None] = mapped_column(String(64))  # the withdrawal that crossed it
    # The outflow counted for a trip starts after the last reset (or an hour ago, if later).
    reset_at: Mapped[datetime | None]
    reset_by: Mapped[str | None] = mapped_column(String(100))
    reset_reason: Mapped[str | None] = mapped_column(String(200))
    updated_at: Mapped[UpdatedAt]
