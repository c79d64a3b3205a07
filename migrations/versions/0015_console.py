"""First-party OAuth clients: a client of the gateway itself belongs to no project.

The operator console (``/console``) signs administrators in through our own authorization
server with the gateway's first-party client ``mccgw-console``. Its authorization codes and
tokens are rows like any client's (they reference ``oauth_clients``), but it has no project:
``oauth_clients.project_id`` becomes nullable (NULL = first-party; no consent is recorded for
it). The row itself is written by the API at start-up (its redirect URI follows BASE_URL).

Revision ID: 0015_console
Revises: 0014_program_interfaces
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0015_console"
down_revision: str | Sequence[str] | None = "0014_program_interfaces"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.alter_column("oauth_clients", "project_id", nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM oauth_clients WHERE project_id IS NULL")
    op.alter_column("oauth_clients", "project_id", nullable=False)
