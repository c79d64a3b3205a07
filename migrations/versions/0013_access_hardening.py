"""Access hardening: first-party OAuth clients.

``oauth_clients.first_party`` marks the gateway's own clients (the console, ``mccgw token``):
only tokens issued to them carry the ``admin`` role's power (decisions.md, "Project
credentials"). A project's client never does, whoever signs in to it.

Revision ID: 0013_access_hardening
Revises: 0012_tokens_deposits_oracle
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_access_hardening"
down_revision: str | Sequence[str] | None = "0012_tokens_deposits_oracle"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "oauth_clients",
        sa.Column("first_party", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("oauth_clients", "first_party")
