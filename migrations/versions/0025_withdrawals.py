"""Withdrawals (issue 41): a user's money out to the wallet of their profile.

- ``withdrawals`` with their state history (``withdrawal_states``), the administrators'
  decisions (``withdrawal_decisions``, one per administrator) and the deployment's outflow
  breaker (``withdrawal_breaker``, one row);
- ``users.wallet_changed_at``: a new wallet receives nothing during a cooling-off;
- ``oauth_tokens.auth_time``: when the user signed in for the grant, kept through refreshes
  (the access token's ``auth_time`` claim; a fresh sign-in is judged by it, access/fresh.py).

Revision ID: 0025_withdrawals
Revises: 0024_approval_whitelist_status
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025_withdrawals"
down_revision: str | Sequence[str] | None = "0024_approval_whitelist_status"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STATUSES = "('pending', 'pending_onchain', 'completed', 'failed', 'cancelled', 'rejected')"


def _now() -> sa.Column[object]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def upgrade() -> None:
    op.add_column("users", sa.Column("wallet_changed_at", sa.DateTime(timezone=True)))
    op.add_column("oauth_tokens", sa.Column("auth_time", sa.BigInteger()))
    op.create_table(
        "withdrawals",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_uid", sa.String(100), nullable=False),
        sa.Column("project_id", sa.BigInteger()),
        sa.Column("client_id", sa.String(64)),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("wallet_address", sa.String(64), nullable=False),
        sa.Column("destination", sa.String(64), nullable=False),
        sa.Column("approvals_required", sa.SmallInteger(), nullable=False, server_default="0"),
        sa.Column("held_by_breaker", sa.Boolean(), nullable=False, server_default="f"),
        sa.Column("cooling_off_until", sa.DateTime(timezone=True)),
        sa.Column("wait_deadline", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failure_reason", sa.String(500)),
        sa.Column("workflow_id", sa.String(200)),
        sa.Column("workflow_seen_at", sa.DateTime(timezone=True)),
        sa.Column("audit_id", sa.Uuid()),
        sa.Column("op_key", sa.String(200)),
        sa.Column("signature", sa.String(88)),
        sa.Column("slot", sa.BigInteger()),
        sa.Column("block_height", sa.BigInteger()),
        _now(),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("onchain_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint(f"status IN {_STATUSES}", name="status"),
        sa.CheckConstraint("amount > 0", name="amount_positive"),
        sa.CheckConstraint("approvals_required BETWEEN 0 AND 2", name="approvals_required"),
    )
    op.create_index("ix_withdrawals_user", "withdrawals", ["user_uid", "created_at"])
    op.create_index("ix_withdrawals_currency", "withdrawals", ["currency", "created_at"])
    op.create_index("ix_withdrawals_status", "withdrawals", ["status", "updated_at"])
    op.create_table(
        "withdrawal_states",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column(
            "withdrawal_id",
            sa.String(64),
            sa.ForeignKey("withdrawals.id"),
            nullable=False,
        ),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("reason", sa.String(500)),
        _now(),
    )
    op.create_index("ix_withdrawal_states_withdrawal", "withdrawal_states", ["withdrawal_id", "id"])
    op.create_table(
        "withdrawal_decisions",
        sa.Column(
            "withdrawal_id",
            sa.String(64),
            sa.ForeignKey("withdrawals.id"),
            primary_key=True,
        ),
        sa.Column("admin_uid", sa.String(100), primary_key=True),
        sa.Column("decision", sa.String(10), nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
        _now(),
        sa.CheckConstraint("decision IN ('approve', 'reject')", name="decision"),
    )
    op.create_table(
        "withdrawal_breaker",
        sa.Column("id", sa.SmallInteger(), primary_key=True),
        sa.Column("tripped", sa.Boolean(), nullable=False, server_default="f"),
        sa.Column("tripped_at", sa.DateTime(timezone=True)),
        sa.Column("tripped_by", sa.String(64)),
        sa.Column("reset_at", sa.DateTime(timezone=True)),
        sa.Column("reset_by", sa.String(100)),
        sa.Column("reset_reason", sa.String(200)),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.CheckConstraint("id = 1", name="single_row"),
    )
    op.execute("INSERT INTO withdrawal_breaker (id, tripped) VALUES (1, false)")


def downgrade() -> None:
    op.drop_table("withdrawal_breaker")
    op.drop_table("withdrawal_decisions")
    op.drop_table("withdrawal_states")
    op.drop_table("withdrawals")
    op.drop_column("oauth_tokens", "auth_time")
    op.drop_column("users", "wallet_changed_at")
