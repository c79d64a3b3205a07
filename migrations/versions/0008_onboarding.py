"""Onboarding: project applications, the stored MCD whitelist, project status history.

Revision ID: 0008_onboarding
Revises: 0005_events
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_onboarding"
down_revision: str | None = "0005_events"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamps() -> list[sa.Column[object]]:
    return [
        sa.Column(name, sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)
        for name in ("created_at", "updated_at")
    ]


def upgrade() -> None:
    op.create_table(
        "project_applications",
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("project_name", sa.String(100), nullable=False),
        sa.Column("project_description", sa.Text),
        sa.Column(
            "developer_uid",
            sa.String(100),
            sa.ForeignKey("users.uid", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("developer_email", sa.String(255), nullable=False),
        sa.Column("company_name", sa.String(100)),
        sa.Column("website_url", sa.String(255)),
        sa.Column("mcc_wallet_address", sa.String(64)),
        sa.Column("mcd_wallet_address", sa.String(64), nullable=False),
        sa.Column("status", sa.String(12), nullable=False, server_default="pending"),
        sa.Column("reviewed_by", sa.String(100)),
        sa.Column("reviewed_at", sa.DateTime(timezone=True)),
        sa.Column("rejection_reason", sa.Text),
        sa.Column(
            "project_id",
            sa.BigInteger,
            sa.ForeignKey("projects.project_id", ondelete="SET NULL"),
            unique=True,
        ),
        sa.Column("api_key", sa.String(64)),
        sa.Column("api_secret_hash", sa.String(128)),
        sa.Column("api_secret_encrypted", sa.String(512)),
        sa.Column("secret_delivered_at", sa.DateTime(timezone=True)),
        sa.Column("approval_error", sa.Text),
        sa.Column("whitelist_pda", sa.String(64)),
        sa.Column("whitelist_bump", sa.Integer),
        sa.Column("whitelist_tx", sa.String(128)),
        *_timestamps(),
        sa.CheckConstraint(
            "status IN ('pending', 'approving', 'approved', 'rejected', 'suspended')",
            name="status",
        ),
    )
    # One open application per developer, even under concurrent applies.
    op.create_index(
        "uq_project_applications_one_open",
        "project_applications",
        ["developer_uid"],
        unique=True,
        postgresql_where=sa.text("status IN ('pending', 'approving')"),
    )
    op.create_index(
        "ix_project_applications_developer",
        "project_applications",
        ["developer_uid", "created_at"],
    )
    op.create_index(
        "ix_project_applications_status", "project_applications", ["status", "created_at"]
    )

    op.create_table(
        "mcd_whitelist_entries",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "project_id",
            sa.BigInteger,
            sa.ForeignKey("projects.project_id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("project_name", sa.String(100), nullable=False),
        sa.Column("wallet_address", sa.String(64), nullable=False),
        sa.Column("pda_address", sa.String(64), nullable=False),
        sa.Column("pda_bump", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False, server_default="active"),
        sa.Column("created_by", sa.String(100)),
        sa.Column("add_tx", sa.String(128)),
        sa.Column("last_tx", sa.String(128)),
        sa.Column("remove_tx", sa.String(128)),
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("pending_action", sa.String(12)),
        sa.Column("pending_op_key", sa.String(200)),
        *_timestamps(),
        sa.CheckConstraint("status IN ('active', 'suspended', 'removed')", name="status"),
    )

    op.create_table(
        "project_status_history",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "project_id",
            sa.BigInteger,
            sa.ForeignKey("projects.project_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("from_status", sa.String(20)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("changed_by", sa.String(100)),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
    )
    op.create_index(
        "ix_project_status_history_project", "project_status_history", ["project_id", "created_at"]
    )


def downgrade() -> None:
    op.drop_table("project_status_history")
    op.drop_table("mcd_whitelist_entries")
    op.drop_table("project_applications")
