"""Every change of a project row tells the API processes at commit (NOTIFY on mccgw_cache,
payload ``project:<id>``), whatever wrote it: the admin API, the console, the CLI, a migration,
plain SQL. Each API process keeps project rows in a NotifyCache (api/auth/project.py) and
evicts the named one, so a suspension, a status change, a secret rotation or an allow-list
change takes effect on the next request everywhere (docs/access.md).

Revision ID: 0018_project_notify
Revises: 0017_refuse_function
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0018_project_notify"
down_revision: str | Sequence[str] | None = "0017_refuse_function"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION mccgw_notify_project() RETURNS trigger AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM pg_notify('mccgw_cache', 'project:' || OLD.project_id);
            ELSE
                PERFORM pg_notify('mccgw_cache', 'project:' || NEW.project_id);
                IF TG_OP = 'UPDATE' AND OLD.project_id <> NEW.project_id THEN
                    PERFORM pg_notify('mccgw_cache', 'project:' || OLD.project_id);
                END IF;
            END IF;
            RETURN NULL;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER projects_notify AFTER INSERT OR UPDATE OR DELETE ON projects
            FOR EACH ROW EXECUTE FUNCTION mccgw_notify_project();
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TRIGGER IF EXISTS projects_notify ON projects;
        DROP FUNCTION IF EXISTS mccgw_notify_project();
        """
    )
