"""The webhook pump is woken by PostgreSQL instead of polling (issue 33): NOTIFY on the
``mccgw_webhooks`` channel at commit when there may be new work for it, whatever wrote it.

- a statement that inserts events (the outbox: a transfer's completion, a deposit, a batch);
- a delivery made due again by someone else (a redelivery: ``pending`` again, or its next
  attempt moved earlier);
- an endpoint that becomes ``active`` again (its pending deliveries are claimable again).

And the deposit watcher is told of newly watched accounts (``mccgw_deposits``: a row added to
``custody_watch`` or ``ledger_accounts``) while it follows the chain (tokens/deposits.py),
instead of looking for them once a second.

The pump (webhooks/delivery.py) LISTENs; retries it scheduled itself wake it by its own timer
(the earliest ``next_attempt_at``), and a slow poll stays as a safety net. PostgreSQL folds
identical notifications of one transaction into one.

Revision ID: 0023_webhook_wakeup
Revises: 0022_consent_notify
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0023_webhook_wakeup"
down_revision: str | Sequence[str] | None = "0022_consent_notify"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION mccgw_notify_webhooks() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify('mccgw_webhooks', TG_TABLE_NAME);
            RETURN NULL;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER events_wake_webhooks AFTER INSERT ON events
            FOR EACH STATEMENT EXECUTE FUNCTION mccgw_notify_webhooks();
        CREATE TRIGGER deliveries_wake_webhooks AFTER UPDATE ON webhook_deliveries
            FOR EACH ROW WHEN (NEW.status = 'pending' AND (OLD.status <> 'pending'
                OR NEW.next_attempt_at < OLD.next_attempt_at))
            EXECUTE FUNCTION mccgw_notify_webhooks();
        CREATE TRIGGER endpoints_wake_webhooks AFTER UPDATE ON webhook_endpoints
            FOR EACH ROW WHEN (NEW.status = 'active' AND OLD.status <> 'active')
            EXECUTE FUNCTION mccgw_notify_webhooks();
        CREATE FUNCTION mccgw_notify_watch() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify('mccgw_deposits', TG_TABLE_NAME);
            RETURN NULL;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER custody_watch_wake_deposits AFTER INSERT ON custody_watch
            FOR EACH ROW EXECUTE FUNCTION mccgw_notify_watch();
        CREATE TRIGGER ledger_accounts_wake_deposits AFTER INSERT ON ledger_accounts
            FOR EACH ROW EXECUTE FUNCTION mccgw_notify_watch();
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TRIGGER IF EXISTS ledger_accounts_wake_deposits ON ledger_accounts;
        DROP TRIGGER IF EXISTS custody_watch_wake_deposits ON custody_watch;
        DROP FUNCTION IF EXISTS mccgw_notify_watch();
        DROP TRIGGER IF EXISTS endpoints_wake_webhooks ON webhook_endpoints;
        DROP TRIGGER IF EXISTS deliveries_wake_webhooks ON webhook_deliveries;
        DROP TRIGGER IF EXISTS events_wake_webhooks ON events;
        DROP FUNCTION IF EXISTS mccgw_notify_webhooks();
        """
    )
