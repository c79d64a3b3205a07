"""Mining counts its MCD limits in the engine's shared ``limit_usage`` table.

Carries the usage already counted in ``mining_daily_totals`` over to ``limit_usage``
(operation ``mining``, currency ``MCD``), so a project's day is not reset by the switch and a
release of an activity accepted before it lands on the right row. ``mining_daily_totals`` is
no longer written; it is left in place (its model is not mining's to remove).

Revision ID: 0010_mining_limit_usage
Revises: 0009_merge_capabilities
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010_mining_limit_usage"
down_revision: str | Sequence[str] | None = "0009_merge_capabilities"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        INSERT INTO limit_usage (project_id, currency, operation, day, used)
        SELECT project_id, 'MCD', 'mining', day, amount
        FROM mining_daily_totals
        WHERE amount > 0
        ON CONFLICT (project_id, currency, operation, day)
        DO UPDATE SET used = limit_usage.used + EXCLUDED.used, updated_at = now()
        """
    )


def downgrade() -> None:
    op.execute(
        """
        INSERT INTO mining_daily_totals (project_id, day, amount)
        SELECT project_id, day, used
        FROM limit_usage
        WHERE operation = 'mining' AND currency = 'MCD'
        ON CONFLICT (project_id, day) DO UPDATE SET amount = EXCLUDED.amount
        """
    )
    op.execute("DELETE FROM limit_usage WHERE operation = 'mining' AND currency = 'MCD'")
