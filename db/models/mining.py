"""Mining submissions (the activities projects report) and the proofs they consumed (each at most
once); the MCD reward limits are counted in the engine's ``limit_usage``."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    Date,
    Index,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, TimestampMixin, UserUid

MINING_STATUSES = (
    "pending_verification",
    "verified",
    "pending_onchain",
    "confirmed",
    "rejected",
    "failed",
)


class MiningSubmission(TimestampMixin, Base):
    """One reported activity on its way to a reward (table and wire names keep "activity")."""

    __tablename__ = "mining_activities"
    __table_args__ = (
        UniqueConstraint("project_id", "idempotency_key", name="uq_mining_activities_key"),
        CheckConstraint(f"status IN {MINING_STATUSES!r}", name="status"),
        CheckConstraint("mcd_amount >= 0", name="amount"),
        Index("ix_mining_activities_user", "user_uid", "confirmed_at"),
        Index("ix_mining_activities_project", "project_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    project_id: Mapped[int]
    user_uid: Mapped[UserUid]
    activity_type: Mapped[str] = mapped_column(String(64))
    activity_data: Mapped[dict[str, Any]] = mapped_column(JSONB)
    proof: Mapped[dict[str, Any]] = mapped_column(JSONB)
    # The canonical text the proof hash must cover, fixed at submission (mining.canonical).
    canonical: Mapped[str] = mapped_column(Text)
    idempotency_key: Mapped[str] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(24), default="pending_verification")
    reason: Mapped[str | None] = mapped_column(String(300))
    # The reward in MCD base units, computed at acceptance (counted against the limits).
    mcd_amount: Mapped[int]
    reward_day: Mapped[date] = mapped_column(Date)
    workflow_id: Mapped[str] = mapped_column(String(200))
    op_key: Mapped[str | None] = mapped_column(String(200))
    tx_signature: Mapped[str | None] = mapped_column(String(100))
    block_height: Mapped[int | None]
    # [{status, at, reason?}] in order.
    history: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list)
    confirmed_at: Mapped[datetime | None]


class MiningProof(Base):
    """A proof hash can be consumed by exactly one activity (the replay guard)."""

    __tablename__ = "mining_proofs"

    proof_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    activity_id: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
