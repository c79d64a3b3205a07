"""Drop ``mining_daily_totals``: nothing has read or written it since mining counts its MCD
limits in the engine's ``limit_usage`` (0010 carried its rows over).

The downgrade recreates the table as 0007 made it and fills it from ``limit_usage`` the way
0010's downgrade does, so a database taken below 0010 again finds the totals it expects.

Revision ID: 0016_drop_mining_daily_totals
Revises: 0015_console
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_drop_mining_daily_totals"
down_revision: str | Sequence[str] | None = "0015_console"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_table("mining_daily_totals")


def downgrade() -> None:
    op.create_table(
        "mining_daily_totals",
        sa.Column("project_id", sa.BigInteger, primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.CheckConstraint("amount >= 0", name="ck_mining_daily_totals_amount"),
    )
    op.execute(
        """
        INSERT INTO mining_daily_totals (project_id, day, amount)
        SELECT project_id, day, used
        FROM limit_usage
        WHERE operation = 'mining' AND currency = 'MCD'
        """
    )
