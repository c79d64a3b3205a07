"""Deposits by block (issue 29): the watcher's slot cursor, and each mint's token program.

deposit_cursor: one row per chain (its genesis hash): the last slot whose block was fully
examined and whose credits were committed with it. mint_decimals.program: the token program
owning the mint (SPL Token or Token-2022), kept like its decimals for a start while the chain
is down.

Revision ID: 0021_deposit_blocks
Revises: 0020_price_samples
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_deposit_blocks"
down_revision: str | Sequence[str] | None = "0020_price_samples"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deposit_cursor",
        sa.Column("chain", sa.String(64), primary_key=True),
        sa.Column("slot", sa.BigInteger(), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
    )
    op.add_column("mint_decimals", sa.Column("program", sa.String(44)))


def downgrade() -> None:
    op.drop_column("mint_decimals", "program")
    op.drop_table("deposit_cursor")
