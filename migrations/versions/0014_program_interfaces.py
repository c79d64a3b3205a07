"""Token decimals read from the mints are kept per mint address (``mint_decimals``).

A mint's decimals never change after initialisation, so a process that starts while its chain
is unreachable can still build ``transfer_checked`` with the value read earlier.

Revision ID: 0014_program_interfaces
Revises: 0010_mining_limit_usage
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_program_interfaces"
down_revision: str | Sequence[str] | None = "0010_mining_limit_usage"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mint_decimals",
        sa.Column("mint", sa.String(44), primary_key=True),
        sa.Column("decimals", sa.Integer(), nullable=False),
        sa.Column(
            "read_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
    )


def downgrade() -> None:
    op.drop_table("mint_decimals")
