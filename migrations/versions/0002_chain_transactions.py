"""Chain write records: one row per op_key plus every signed attempt.

Revision ID: 0002_chain_transactions
Revises: 0001_initial
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002_chain_transactions"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamps() -> list[sa.Column[object]]:
    return [
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "chain_transactions",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("op_key", sa.String(200), nullable=False, unique=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("commitment", sa.String(16), nullable=False),
        sa.Column("payload_hash", sa.String(64), nullable=False),
        sa.Column("fee_payer", sa.String(44), nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("signature", sa.String(88), nullable=False, unique=True),
        sa.Column("blockhash", sa.String(44), nullable=False),
        sa.Column("last_valid_block_height", sa.BigInteger, nullable=False),
        sa.Column("tx_bytes", sa.LargeBinary, nullable=False),
        sa.Column("send_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_sent_at", sa.DateTime(timezone=True)),
        sa.Column("last_send_error", sa.String(1000)),
        sa.Column("slot", sa.BigInteger),
        sa.Column("block_height", sa.BigInteger),
        sa.Column("confirmation_status", sa.String(16)),
        sa.Column("err", postgresql.JSONB),
        sa.Column("completed_at", sa.DateTime(timezone=True)),
        sa.Column("meta", postgresql.JSONB, nullable=False),
        *_timestamps(),
        sa.CheckConstraint(
            "status IN ('signed', 'sent', 'landed', 'succeeded', 'failed')", name="status"
        ),
        sa.CheckConstraint(
            "commitment IN ('processed', 'confirmed', 'finalized')", name="commitment"
        ),
        sa.CheckConstraint("attempt >= 1", name="attempt"),
    )
    op.create_table(
        "chain_tx_attempts",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "chain_tx_id",
            sa.BigInteger,
            sa.ForeignKey("chain_transactions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("signature", sa.String(88), nullable=False, unique=True),
        sa.Column("blockhash", sa.String(44), nullable=False),
        sa.Column("last_valid_block_height", sa.BigInteger, nullable=False),
        sa.Column("tx_bytes", sa.LargeBinary, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint("chain_tx_id", "attempt"),
        sa.CheckConstraint(
            "status IN ('signed', 'sent', 'landed', 'expired', 'succeeded', 'failed')",
            name="status",
        ),
    )


def downgrade() -> None:
    op.drop_table("chain_tx_attempts")
    op.drop_table("chain_transactions")
