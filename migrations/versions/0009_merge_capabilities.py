"""Merge the engine, webhooks/mining and onboarding branches (built in parallel from 0005).

Revision ID: 0009_merge_capabilities
Revises: 0006_engine, 0007_webhooks_mining, 0008_onboarding
Create Date: 2026-11-22
"""

from collections.abc import Sequence

revision: str = "0009_merge_capabilities"
down_revision: str | Sequence[str] | None = (
    "0006_engine",
    "0007_webhooks_mining",
    "0008_onboarding",
)
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
