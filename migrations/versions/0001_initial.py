"""Users and projects.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamps() -> list[sa.Column[object]]:
    return [
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("uid", sa.String(100), primary_key=True),
        sa.Column("username", sa.String(100), nullable=False, unique=True),
        sa.Column("email", sa.String(255), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255)),
        sa.Column("wallet_address", sa.String(64)),
        sa.Column("role", sa.String(20), nullable=False, server_default="user"),
        sa.Column("display_name", sa.String(50)),
        sa.Column("avatar_url", sa.String(500)),
        sa.Column("api_keys_configured", sa.Boolean, nullable=False, server_default="f"),
        sa.Column("station_id", sa.Integer),
        sa.Column("unit_id", sa.Integer),
        *_timestamps(),
        sa.CheckConstraint(
            "role IN ('admin', 'unit_manager', 'unit_member', 'user', 'miner')", name="role"
        ),
    )
    op.create_table(
        "projects",
        sa.Column("project_id", sa.BigInteger, sa.Identity(start=1000), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("description", sa.String(2000)),
        sa.Column("webhook_url", sa.String(500)),
        sa.Column("allowed_scopes", postgresql.ARRAY(sa.String(50)), nullable=False),
        sa.Column("rate_limit_tier", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="active"),
        sa.Column("suspended", sa.Boolean, nullable=False, server_default="f"),
        sa.Column("api_key", sa.String(64), unique=True),
        sa.Column("api_secret_hash", sa.String(128)),
        sa.Column("api_secret_encrypted", sa.String(512)),
        sa.Column("ip_allowlist", postgresql.ARRAY(sa.String(64)), nullable=False),
        sa.Column("limits", postgresql.JSONB, nullable=False),
        sa.Column("mcd_wallet_address", sa.String(64)),
        sa.Column("owner_uid", sa.String(100)),
        *_timestamps(),
        sa.CheckConstraint("rate_limit_tier IN ('free', 'standard', 'enterprise')", name="tier"),
        sa.CheckConstraint(
            "status IN ('active', 'maintenance', 'testing', 'discontinued', 'deleted')",
            name="status",
        ),
    )


def downgrade() -> None:
    op.drop_table("projects")
    op.drop_table("users")
