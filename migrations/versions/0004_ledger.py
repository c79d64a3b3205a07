"""Ledger: accounts, two-phase holds, append-only entries.

Revision ID: 0004_ledger
Revises: 0003_access
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_ledger"
down_revision: str | None = "0003_access"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ACCOUNT_FK = (["user_uid", "currency"], ["ledger_accounts.user_uid", "ledger_accounts.currency"])


def _now(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(
        name, sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=nullable
    )


def upgrade() -> None:
    op.create_table(
        "ledger_accounts",
        sa.Column("user_uid", sa.String(100), primary_key=True),
        sa.Column("currency", sa.String(8), primary_key=True),
        sa.Column("balance", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("held", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("pending_out", sa.BigInteger, nullable=False, server_default="0"),
        _now("updated_at"),
        sa.CheckConstraint("currency IN ('MCC', 'MCD')", name="currency"),
        sa.CheckConstraint("balance >= 0", name="balance_nonneg"),
        sa.CheckConstraint("held >= 0", name="held_nonneg"),
        sa.CheckConstraint("pending_out >= 0", name="pending_out_nonneg"),
        sa.CheckConstraint("balance - held - pending_out >= 0", name="available_nonneg"),
    )
    op.create_table(
        "holds",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_uid", sa.String(100), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False, server_default="active"),
        sa.Column("project_id", sa.BigInteger),
        sa.Column("reason", sa.String(100)),
        sa.Column("reference_id", sa.String(200)),
        sa.Column("expires_at", sa.DateTime(timezone=True)),
        _now("created_at"),
        sa.Column("resolved_at", sa.DateTime(timezone=True)),
        sa.Column("resolution", sa.String(200)),
        sa.CheckConstraint("status IN ('active', 'posted', 'voided', 'expired')", name="status"),
        sa.CheckConstraint("amount > 0", name="amount_positive"),
        sa.CheckConstraint("(status = 'active') = (resolved_at IS NULL)", name="resolved_once"),
        sa.ForeignKeyConstraint(*_ACCOUNT_FK, name="fk_holds_user_uid_ledger_accounts"),
    )
    op.create_index(
        "ix_holds_active_user",
        "holds",
        ["user_uid", "currency"],
        postgresql_where=sa.text("status = 'active'"),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("user_uid", sa.String(100), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("d_balance", sa.BigInteger, nullable=False),
        sa.Column("d_held", sa.BigInteger, nullable=False),
        sa.Column("d_pending_out", sa.BigInteger, nullable=False),
        sa.Column("hold_id", sa.String(64)),
        sa.Column("reference", sa.String(200)),
        _now("created_at"),
        sa.CheckConstraint(
            "kind IN ('credit', 'hold', 'void', 'expire', 'post', 'begin_out', 'cancel_out', "
            "'debit')",
            name="kind",
        ),
        sa.CheckConstraint("amount > 0", name="amount_positive"),
        sa.ForeignKeyConstraint(*_ACCOUNT_FK, name="fk_ledger_entries_user_uid_ledger_accounts"),
    )
    op.create_index("ix_ledger_entries_account", "ledger_entries", ["user_uid", "currency", "id"])
    # Entries are history: refuse any rewrite of it.
    op.execute(
        """
        CREATE FUNCTION ledger_entries_append_only() RETURNS trigger AS $$
        BEGIN
            RAISE EXCEPTION 'ledger_entries is append-only (% refused)', TG_OP;
        END;
        $$ LANGUAGE plpgsql;
        CREATE TRIGGER ledger_entries_append_only
            BEFORE UPDATE OR DELETE ON ledger_entries
            FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS ledger_entries_append_only ON ledger_entries")
    op.execute("DROP FUNCTION IF EXISTS ledger_entries_append_only()")
    op.drop_table("ledger_entries")
    op.drop_table("holds")
    op.drop_table("ledger_accounts")
