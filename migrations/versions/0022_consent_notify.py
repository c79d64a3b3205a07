"""Every change of a consent tells the API processes at commit (NOTIFY on mccgw_cache, payload
``consent:<project_id>:<uid>``), whatever wrote it: the authorization server's consent page, a
user's withdrawal, an admin grant, plain SQL. Each API process keeps consent grants in a
NotifyCache (access.consent) and evicts the named one, so a withdrawn consent stops the
project on the next request everywhere (docs/access.md).

Revision ID: 0022_consent_notify
Revises: 0021_deposit_blocks
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0022_consent_notify"
down_revision: str | Sequence[str] | None = "0021_deposit_blocks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION mccgw_notify_consent() RETURNS trigger AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                PERFORM pg_notify('mccgw_cache',
                                  'consent:' || OLD.project_id || ':' || OLD.user_uid);
            END IF;
            IF TG_OP <> 'DELETE' THEN
                PERFORM pg_notify('mccgw_cache',
                                  'consent:' || NEW.project_id || ':' || NEW.user_uid);
            END IF;
            RETURN NULL;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER oauth_consents_notify AFTER INSERT OR UPDATE OR DELETE ON oauth_consents
            FOR EACH ROW EXECUTE FUNCTION mccgw_notify_consent();
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TRIGGER IF EXISTS oauth_consents_notify ON oauth_consents;
        DROP FUNCTION IF EXISTS mccgw_notify_consent();
        """
    )
