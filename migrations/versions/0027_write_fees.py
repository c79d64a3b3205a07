"""Write fees (issue 39): what each chain write paid, recorded when it is settled.

- chain_transactions.fee_lamports: 5 000 lamports a signature plus the priority fee (its
  compute-unit limit times its price) of the attempt that landed (chain/fees.py ``fee_of``);
  NULL for a write that never landed or was settled before this revision.
- chain_transactions.cu_price: that attempt's compute-unit price, micro-lamports a unit.

Revision ID: 0027_write_fees
Revises: 0026_tenants_apart
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027_write_fees"
down_revision: str | Sequence[str] | None = "0026_tenants_apart"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("chain_transactions", sa.Column("fee_lamports", sa.BigInteger(), nullable=True))
    op.add_column("chain_transactions", sa.Column("cu_price", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("chain_transactions", "cu_price")
    op.drop_column("chain_transactions", "fee_lamports")
