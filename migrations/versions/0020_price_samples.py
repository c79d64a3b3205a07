"""price_samples: the oracle's readings of the market pool, one a minute, from which each
4-hour close takes the median of the readings in its window (tokens/oracle.py, docs/tokens.md).

Revision ID: 0020_price_samples
Revises: 0019_lifecycle_rotation
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_price_samples"
down_revision: str | Sequence[str] | None = "0019_lifecycle_rotation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "price_samples",
        sa.Column("sampled_at", _TS, primary_key=True),
        sa.Column("usdc_vault", sa.BigInteger, nullable=False),
        sa.Column("mcc_vault", sa.BigInteger, nullable=False),
        sa.Column("price_usdc", sa.BigInteger),
        sa.Column("counted", sa.Boolean, nullable=False),
        sa.Column("created_at", _TS, nullable=False, server_default=sa.func.now()),
    )


def downgrade() -> None:
    op.drop_table("price_samples")
