"""Project onboarding: developers' applications, the MCD whitelist as stored, project status
history.

- ``project_applications``: one row per application; at most one ``pending``/``approving``
  application per developer (partial unique index). The one-time api_secret is kept here only
  AES-GCM encrypted, and only until it has been shown once (``secret_delivered_at``).
- ``mcd_whitelist_entries``: our record of each project's on-chain whitelist account.
  ``version`` numbers the chain writes of an entry (op keys ``whitelist:<id>:<action>:<n>``);
  ``pending_action``/``pending_op_key`` hold a chain write that was submitted but whose outcome
  has not reached this table yet (settled by the next call).
- ``project_status_history``: every project status change, with reason and author.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    Uuid,
    func,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, IdentityPk, TimestampMixin

# ``approving`` is no longer entered (migration 0024: an approval is ``approved`` at once, its
# whitelist entry's state in ``whitelist_status``); kept so the constraint and index stand.
APPLICATION_STATUSES = ("pending", "approving", "approved", "rejected", "suspended")
# Statuses that count as "the developer's open application" (one at most).
OPEN_APPLICATION_STATUSES = ("pending", "approving")
WHITELIST_STATUSES = ("active", "suspended", "removed")
# An approved application's whitelist entry: ``pending`` until ApprovalWorkflow has written it
# on chain, then the entry's own status; ``failed``: the program refused it (approval_error).
APPLICATION_WHITELIST_STATUSES = ("pending", *WHITELIST_STATUSES, "failed")


class ProjectApplication(TimestampMixin, Base):
    __tablename__ = "project_applications"
    __table_args__ = (
        CheckConstraint(f"status IN {APPLICATION_STATUSES!r}", name="status"),
        CheckConstraint(
            f"whitelist_status IN {APPLICATION_WHITELIST_STATUSES!r}", name="whitelist_status"
        ),
        Index(
            "uq_project_applications_one_open",
            "developer_uid",
            unique=True,
            postgresql_where=text(f"status IN {OPEN_APPLICATION_STATUSES!r}"),
        ),
        Index("ix_project_applications_developer", "developer_uid", "created_at"),
        Index("ix_project_applications_status", "status", "created_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    project_name: Mapped[str] = mapped_column(String(100))
    project_description: Mapped[str | None] = mapped_column(Text)
    developer_uid: Mapped[str] = mapped_column(
        String(100), ForeignKey("users.uid", ondelete="CASCADE")
    )
    developer_email: Mapped[str] = mapped_column(String(255))
    company_name: Mapped[str | None] = mapped_column(String(100))
    website_url: Mapped[str | None] = mapped_column(String(255))
    mcc_wallet_address: Mapped[str | None] = mapped_column(String(64))
    mcd_wallet_address: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(12), default="pending", server_default="pending")
    reviewed_by: Mapped[str | None] = mapped_column(String(100))
    reviewed_at: Mapped[datetime | None]
    rejection_reason: Mapped[str | None] = mapped_column(Text)
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("projects.project_id", ondelete="SET NULL"), unique=True
    )
    api_key: Mapped[str | None] = mapped_column(String(64))
    # Set when approval starts; cleared once the secret has been shown (the project row keeps
    # its own hash and encrypted copy for authentication).
    api_secret_hash: Mapped[str | None] = mapped_column(String(128))
    api_secret_encrypted: Mapped[str | None] = mapped_column(String(512))
    secret_delivered_at: Mapped[datetime | None]
    approval_error: Mapped[str | None] = mapped_column(Text)
    whitelist_pda: Mapped[str | None] = mapped_column(String(64))
    whitelist_bump: Mapped[int | None] = mapped_column(Integer)
    whitelist_tx: Mapped[str | None] = mapped_column(String(128))
    whitelist_status: Mapped[str | None] = mapped_column(String(12))


class McdWhitelistEntry(TimestampMixin, Base):
    __tablename__ = "mcd_whitelist_entries"
    __table_args__ = (CheckConstraint(f"status IN {WHITELIST_STATUSES!r}", name="status"),)

    id: Mapped[IdentityPk]
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.project_id", ondelete="CASCADE"), unique=True
    )
    project_name: Mapped[str] = mapped_column(String(100))
    wallet_address: Mapped[str] = mapped_column(String(64))
    pda_address: Mapped[str] = mapped_column(String(64))
    pda_bump: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), default="active", server_default="active")
    created_by: Mapped[str | None] = mapped_column(String(100))
    add_tx: Mapped[str | None] = mapped_column(String(128))
    last_tx: Mapped[str | None] = mapped_column(String(128))
    remove_tx: Mapped[str | None] = mapped_column(String(128))
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    pending_action: Mapped[str | None] = mapped_column(String(12))
    pending_op_key: Mapped[str | None] = mapped_column(String(200))


class ProjectStatusRecord(Base):
    __tablename__ = "project_status_history"
    __table_args__ = (Index("ix_project_status_history_project", "project_id", "created_at"),)

    id: Mapped[IdentityPk]
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id", ondelete="CASCADE"))
    from_status: Mapped[str | None] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str | None] = mapped_column(Text)
    changed_by: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(server_default=func.now(), nullable=False)
