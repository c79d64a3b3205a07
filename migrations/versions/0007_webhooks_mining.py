"""Webhook endpoints, deliveries and attempts; mining activities, proofs and daily totals.

Revision ID: 0007_webhooks_mining
Revises: 0005_events
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007_webhooks_mining"
down_revision: str | None = "0005_events"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str, *, nullable: bool = False, default: bool = True) -> sa.Column:
    return sa.Column(
        name,
        sa.DateTime(timezone=True),
        server_default=sa.func.now() if default else None,
        nullable=nullable,
    )


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("project_id", sa.BigInteger, nullable=False),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("events", postgresql.ARRAY(sa.String(64)), nullable=False),
        sa.Column("secret_encrypted", sa.String(512), nullable=False),
        sa.Column("status", sa.String(16), server_default="active", nullable=False),
        _ts("failing_since", nullable=True, default=False),
        _ts("disabled_at", nullable=True, default=False),
        sa.Column("disabled_reason", sa.String(200)),
        _ts("created_at"),
        _ts("updated_at"),
        sa.CheckConstraint(
            "status IN ('active', 'disabled', 'deleted')", name="ck_webhook_endpoints_status"
        ),
    )
    op.create_index(
        "ix_webhook_endpoints_project", "webhook_endpoints", ["project_id", "created_at"]
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("event_id", sa.String(64), sa.ForeignKey("events.id"), nullable=False),
        sa.Column(
            "endpoint_id", sa.String(40), sa.ForeignKey("webhook_endpoints.id"), nullable=False
        ),
        sa.Column("project_id", sa.BigInteger, nullable=False),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), server_default="pending", nullable=False),
        sa.Column("schedule_index", sa.Integer, server_default="0", nullable=False),
        sa.Column("attempts", sa.Integer, server_default="0", nullable=False),
        _ts("next_attempt_at"),
        sa.Column("last_status_code", sa.Integer),
        sa.Column("last_error", sa.String(500)),
        _ts("created_at"),
        _ts("completed_at", nullable=True, default=False),
        sa.UniqueConstraint("event_id", "endpoint_id", name="uq_webhook_deliveries_event_endpoint"),
        sa.CheckConstraint(
            "status IN ('pending', 'succeeded', 'failed')", name="ck_webhook_deliveries_status"
        ),
    )
    op.create_index(
        "ix_webhook_deliveries_due",
        "webhook_deliveries",
        ["next_attempt_at"],
        postgresql_where=sa.text("status = 'pending'"),
    )
    op.create_index(
        "ix_webhook_deliveries_endpoint", "webhook_deliveries", ["endpoint_id", "created_at"]
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "delivery_id", sa.String(40), sa.ForeignKey("webhook_deliveries.id"), nullable=False
        ),
        sa.Column("endpoint_id", sa.String(40), nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("status_code", sa.Integer),
        sa.Column("latency_ms", sa.Integer, nullable=False),
        sa.Column("error", sa.String(500)),
        _ts("created_at"),
    )
    op.create_index("ix_webhook_attempts_delivery", "webhook_attempts", ["delivery_id", "attempt"])

    op.create_table(
        "mining_activities",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("project_id", sa.BigInteger, nullable=False),
        sa.Column("user_uid", sa.String(100), nullable=False),
        sa.Column("activity_type", sa.String(64), nullable=False),
        sa.Column("activity_data", postgresql.JSONB, nullable=False),
        sa.Column("proof", postgresql.JSONB, nullable=False),
        sa.Column("canonical", sa.Text, nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=False),
        sa.Column("status", sa.String(24), nullable=False),
        sa.Column("reason", sa.String(300)),
        sa.Column("mcd_amount", sa.BigInteger, nullable=False),
        sa.Column("reward_day", sa.Date, nullable=False),
        sa.Column("workflow_id", sa.String(200), nullable=False),
        sa.Column("op_key", sa.String(200)),
        sa.Column("tx_signature", sa.String(100)),
        sa.Column("block_height", sa.BigInteger),
        sa.Column("history", postgresql.JSONB, nullable=False),
        _ts("confirmed_at", nullable=True, default=False),
        _ts("created_at"),
        _ts("updated_at"),
        sa.UniqueConstraint("project_id", "idempotency_key", name="uq_mining_activities_key"),
        sa.CheckConstraint(
            "status IN ('pending_verification', 'verified', 'pending_onchain', 'confirmed', "
            "'rejected', 'failed')",
            name="ck_mining_activities_status",
        ),
        sa.CheckConstraint("mcd_amount >= 0", name="ck_mining_activities_amount"),
    )
    op.create_index("ix_mining_activities_user", "mining_activities", ["user_uid", "confirmed_at"])
    op.create_index(
        "ix_mining_activities_project", "mining_activities", ["project_id", "created_at"]
    )
    op.create_table(
        "mining_proofs",
        sa.Column("proof_hash", sa.String(64), primary_key=True),
        sa.Column("activity_id", sa.String(40), nullable=False),
        _ts("created_at"),
    )
    op.create_table(
        "mining_daily_totals",
        sa.Column("project_id", sa.BigInteger, primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.CheckConstraint("amount >= 0", name="ck_mining_daily_totals_amount"),
    )


def downgrade() -> None:
    op.drop_table("mining_daily_totals")
    op.drop_table("mining_proofs")
    op.drop_table("mining_activities")
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")
