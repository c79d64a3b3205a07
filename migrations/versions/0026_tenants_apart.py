"""Tenants apart (issue 38): a newly watched custody account's catch-up runs apart from the
block walk, and the public token statistics read an index.

- custody_watch.watched_from: the slot from which the deposit follower had the account in its
  set (every later block is matched against it); the catch-up examines the account's history
  up to that slot only, in pages, its position in ``last_signature`` (tokens/deposit_catch_up.py).
  Rows the old watcher had caught up keep ``ready``; rows it had not are caught up anew.
- The trigger that wakes the follower (migration 0023) also fires when a row's address is
  re-derived (a row stored before its mint's token program was known: tokens/deposits.py).
- ix_ledger_entries_credits: credits by currency and time, with their amounts, for the 24 h and
  30 d volume of GET /v1/{mcc,mcd}/stats (tokens/stats.py). Built CONCURRENTLY: ledger_entries
  is the busiest table, and a plain build would block every booking meanwhile.

Revision ID: 0026_tenants_apart
Revises: 0025_withdrawals
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_tenants_apart"
down_revision: str | Sequence[str] | None = "0025_withdrawals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("custody_watch", sa.Column("watched_from", sa.BigInteger()))
    # The old position meant "newest signature examined"; the catch-up's means the oldest.
    op.execute("UPDATE custody_watch SET last_signature = NULL WHERE NOT ready")
    op.execute(
        """
        DROP TRIGGER IF EXISTS custody_watch_wake_deposits ON custody_watch;
        CREATE TRIGGER custody_watch_wake_deposits AFTER INSERT OR UPDATE OF address
            ON custody_watch FOR EACH ROW EXECUTE FUNCTION mccgw_notify_watch();
        """
    )
    with op.get_context().autocommit_block():
        op.create_index(
            "ix_ledger_entries_credits",
            "ledger_entries",
            ["currency", "created_at"],
            postgresql_include=["d_balance"],
            postgresql_where=sa.text("d_balance > 0"),
            postgresql_concurrently=True,
            if_not_exists=True,
        )


def downgrade() -> None:
    with op.get_context().autocommit_block():
        op.drop_index(
            "ix_ledger_entries_credits",
            table_name="ledger_entries",
            postgresql_concurrently=True,
            if_exists=True,
        )
    op.execute(
        """
        DROP TRIGGER IF EXISTS custody_watch_wake_deposits ON custody_watch;
        CREATE TRIGGER custody_watch_wake_deposits AFTER INSERT ON custody_watch
            FOR EACH ROW EXECUTE FUNCTION mccgw_notify_watch();
        """
    )
    op.drop_column("custody_watch", "watched_from")
