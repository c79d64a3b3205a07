"""mccgw_refuse(step): a statement sent with its transaction's COMMIT refuses by raising.

db.last sends the statements on rows every accept shares (the day's limit count) in one round
trip with the COMMIT (a pipeline), so their row locks are never held while the client is busy.
A statement that cannot do its work (the day's limit reached) must then stop the commit itself:
it calls this function, whose error aborts the transaction before the COMMIT runs.

Revision ID: 0017_refuse_function
Revises: 0016_drop_mining_daily_totals
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0017_refuse_function"
down_revision: str | Sequence[str] | None = "0016_drop_mining_daily_totals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION mccgw_refuse(step text) RETURNS boolean
        LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'mccgw-refused:' || step;
        END
        $$
        """
    )


def downgrade() -> None:
    op.execute("DROP FUNCTION mccgw_refuse(text)")
