"""Transaction engine: transfers, their state history, limit usage, reconciliation drifts.

Revision ID: 0006_engine
Revises: 0005_events
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006_engine"
down_revision: str | None = "0005_events"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(
        name, sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=nullable
    )


def upgrade() -> None:
    op.create_table(
        "transfers",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("project_id", sa.BigInteger, nullable=False),
        sa.Column("transfer_type", sa.String(64), nullable=False),
        sa.Column("from_uid", sa.String(100), nullable=False),
        sa.Column("to_uid", sa.String(100), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("lock_id", sa.String(64)),
        sa.Column("reference", postgresql.JSONB, nullable=False),
        sa.Column("requires_onchain", sa.Boolean, nullable=False),
        sa.Column("failure_reason", sa.String(500)),
        sa.Column("limit_day", sa.Date, nullable=False),
        sa.Column("workflow_id", sa.String(200)),
        sa.Column("audit_id", sa.Uuid),
        sa.Column("op_key", sa.String(200)),
        sa.Column("signature", sa.String(88)),
        sa.Column("slot", sa.BigInteger),
        sa.Column("block_height", sa.BigInteger),
        _now("created_at"),
        _now("updated_at"),
        sa.Column("onchain_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint(
            "status IN ('pending', 'pending_onchain', 'completed', 'failed', 'cancelled')",
            name="status",
        ),
        sa.CheckConstraint("amount > 0", name="amount_positive"),
        sa.CheckConstraint("from_uid <> to_uid", name="distinct_parties"),
    )
    op.create_index("ix_transfers_status_onchain", "transfers", ["status", "onchain_at"])
    op.create_index("ix_transfers_project", "transfers", ["project_id", "created_at"])
    op.create_table(
        "transfer_states",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("transfer_id", sa.String(64), sa.ForeignKey("transfers.id"), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("reason", sa.String(500)),
        _now("created_at"),
    )
    op.create_index("ix_transfer_states_transfer", "transfer_states", ["transfer_id", "id"])
    op.create_table(
        "limit_usage",
        sa.Column("project_id", sa.BigInteger, primary_key=True),
        sa.Column("currency", sa.String(8), primary_key=True),
        sa.Column("operation", sa.String(16), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("used", sa.BigInteger, nullable=False, server_default="0"),
        _now("updated_at"),
        sa.CheckConstraint("used >= 0", name="used_nonneg"),
        sa.CheckConstraint("operation IN ('fund_lock', 'transfer', 'mining')", name="operation"),
    )
    op.create_table(
        "reconciliation_drifts",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("user_uid", sa.String(100), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("address", sa.String(44), nullable=False),
        sa.Column("chain_balance", sa.BigInteger, nullable=False),
        sa.Column("ledger_balance", sa.BigInteger, nullable=False),
        sa.Column("drift", sa.BigInteger, nullable=False),
        _now("created_at"),
    )
    op.create_index("ix_reconciliation_drifts_run", "reconciliation_drifts", ["run_id"])


def downgrade() -> None:
    op.drop_table("reconciliation_drifts")
    op.drop_table("limit_usage")
    op.drop_table("transfer_states")
    op.drop_table("transfers")
