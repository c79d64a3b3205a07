"""Key rotation (issue 34): a rolled secret keeps working until its expiry.

projects: the previous api_secret (hash and AES-GCM copy) and when it stops working.
webhook_endpoints: the previous signing secret and when deliveries stop signing with it.
oauth_clients: the previous client secret's hash and when it stops authenticating.

Revision ID: 0019_lifecycle_rotation
Revises: 0018_project_notify
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_lifecycle_rotation"
down_revision: str | Sequence[str] | None = "0018_project_notify"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("projects", sa.Column("previous_api_secret_hash", sa.String(128)))
    op.add_column("projects", sa.Column("previous_api_secret_encrypted", sa.String(512)))
    op.add_column("projects", sa.Column("previous_secret_expires_at", sa.DateTime(timezone=True)))
    op.add_column("webhook_endpoints", sa.Column("previous_secret_encrypted", sa.String(512)))
    op.add_column(
        "webhook_endpoints",
        sa.Column("previous_secret_expires_at", sa.DateTime(timezone=True)),
    )

    op.add_column("oauth_clients", sa.Column("previous_client_secret_hash", sa.String(128)))
    op.add_column(
        "oauth_clients", sa.Column("previous_secret_expires_at", sa.DateTime(timezone=True))
    )


def downgrade() -> None:
    op.drop_column("oauth_clients", "previous_secret_expires_at")
    op.drop_column("oauth_clients", "previous_client_secret_hash")
    op.drop_column("webhook_endpoints", "previous_secret_expires_at")
    op.drop_column("webhook_endpoints", "previous_secret_encrypted")
    op.drop_column("projects", "previous_secret_expires_at")
    op.drop_column("projects", "previous_api_secret_encrypted")
    op.drop_column("projects", "previous_api_secret_hash")
