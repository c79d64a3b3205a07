"""The approval answers with the keys at once (issue 42): an approved application carries its
on-chain whitelist entry's own state, ``whitelist_status``: ``pending`` while
ApprovalWorkflow writes it, then ``active`` (``suspended``, ``removed`` as the admin changes
it), or ``failed`` when the program refused it. The interim application status ``approving``
is no longer entered: such rows become ``approved`` with their whitelist ``pending`` (their
workflow, or the recovery sweep, finishes the entry; a repeated approve call hands out the
secret once, as before).

Revision ID: 0024_approval_whitelist_status
Revises: 0023_webhook_wakeup
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024_approval_whitelist_status"
down_revision: str | Sequence[str] | None = "0023_webhook_wakeup"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("project_applications", sa.Column("whitelist_status", sa.String(12)))
    op.create_check_constraint(
        "whitelist_status",
        "project_applications",
        "whitelist_status IN ('pending', 'active', 'suspended', 'removed', 'failed')",
    )
    op.execute(
        """
        UPDATE project_applications a SET whitelist_status = e.status
            FROM mcd_whitelist_entries e WHERE e.project_id = a.project_id;
        UPDATE project_applications
            SET status = 'approved',
                reviewed_at = COALESCE(reviewed_at, now()),
                whitelist_status = CASE WHEN approval_error IS NULL THEN 'pending' ELSE 'failed' END
            WHERE status = 'approving';
        UPDATE project_applications SET whitelist_status = 'pending'
            WHERE status IN ('approved', 'suspended') AND whitelist_status IS NULL;
        """
    )


def downgrade() -> None:
    op.execute(
        """
        UPDATE project_applications SET status = 'approving'
            WHERE status = 'approved' AND whitelist_status IN ('pending', 'failed');
        """
    )
    op.drop_constraint("whitelist_status", "project_applications", type_="check")
    op.drop_column("project_applications", "whitelist_status")
