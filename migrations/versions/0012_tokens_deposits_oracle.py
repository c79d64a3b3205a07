"""Token data: deposits detected on chain, the custody accounts the deposit watcher follows,
the price oracle's closes and the administrator price, numbered balance movements for
transaction pages,
and NOTIFY triggers that let API processes drop cached balances and prices at once.

Revision ID: 0012_tokens_deposits_oracle
Revises: 0011_organizations
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_tokens_deposits_oracle"
down_revision: str | Sequence[str] | None = "0011_organizations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "custody_watch",
        sa.Column("address", sa.String(44), primary_key=True),
        sa.Column("user_uid", sa.String(100), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("ready", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("last_signature", sa.String(88)),
        sa.Column("scanned_at", _TS),
        sa.Column("created_at", _TS, nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("user_uid", "currency", name="uq_custody_watch_user_uid"),
        sa.CheckConstraint("currency IN ('MCC', 'MCD')", name="ck_custody_watch_currency"),
    )
    op.create_table(
        "deposits",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("signature", sa.String(88), nullable=False),
        sa.Column("address", sa.String(44), nullable=False),
        sa.Column("user_uid", sa.String(100), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("outcome", sa.String(24), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("sender", sa.String(44)),
        sa.Column("mint", sa.String(44)),
        sa.Column("slot", sa.BigInteger, nullable=False),
        sa.Column("block_time", _TS),
        sa.Column("err", sa.dialects.postgresql.JSONB),
        sa.Column("created_at", _TS, nullable=False, server_default=sa.func.now()),
        # Exactly once per (transaction, custody account): the credit's guard.
        sa.UniqueConstraint("signature", "address", name="uq_deposits_signature"),
        sa.CheckConstraint(
            "outcome IN ('credited', 'ignored_failed', 'ignored_wrong_mint', "
            "'unexplained_outflow')",
            name="ck_deposits_outcome",
        ),
        sa.CheckConstraint("amount >= 0", name="ck_deposits_amount_nonneg"),
    )
    op.create_index("ix_deposits_user", "deposits", ["user_uid", "currency", "id"])
    op.create_table(
        "price_closes",
        sa.Column("close_at", _TS, primary_key=True),
        sa.Column("price_usdc", sa.BigInteger, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("base_price_usdc", sa.BigInteger, nullable=False),
        sa.Column("buyback_price_usdc", sa.BigInteger, nullable=False),
        sa.Column("premium_bps", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("onchain_signature", sa.String(88)),
        sa.Column("onchain_at", _TS),
        sa.Column("created_at", _TS, nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint(
            "source IN ('market', 'admin', 'default')", name="ck_price_closes_source"
        ),
        sa.CheckConstraint("price_usdc > 0", name="ck_price_closes_price_positive"),
    )
    op.create_table(
        "admin_prices",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("price_usdc", sa.BigInteger, nullable=False),
        sa.Column("set_by", sa.String(100), nullable=False),
        sa.Column("request_id", sa.String(128)),
        sa.Column("created_at", _TS, nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("price_usdc > 0", name="ck_admin_prices_price_positive"),
    )
    # Transaction pages: every balance movement gets a dense position per account (1, 2, ...),
    # kept by a statement trigger on ledger_entries (append-only, so positions never change).
    # Page p of a user is then a primary-key range whatever its depth, and the total is one row.
    op.create_table(
        "ledger_movement_counts",
        sa.Column("user_uid", sa.String(100), primary_key=True),
        sa.Column("currency", sa.String(8), primary_key=True),
        sa.Column("movements", sa.BigInteger, nullable=False, server_default="0"),
    )
    op.create_table(
        "ledger_movements",
        sa.Column("user_uid", sa.String(100), primary_key=True),
        sa.Column("currency", sa.String(8), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True),
        sa.Column("entry_id", sa.BigInteger, nullable=False),
    )
    op.execute(
        """
        INSERT INTO ledger_movements (user_uid, currency, seq, entry_id)
        SELECT user_uid, currency,
               row_number() OVER (PARTITION BY user_uid, currency ORDER BY id), id
        FROM ledger_entries WHERE d_balance <> 0;
        INSERT INTO ledger_movement_counts (user_uid, currency, movements)
        SELECT user_uid, currency, count(*) FROM ledger_movements GROUP BY user_uid, currency;
        CREATE FUNCTION mccgw_number_movements() RETURNS trigger AS $$
        BEGIN
            WITH moves AS (
                SELECT user_uid, currency, id,
                       row_number() OVER (PARTITION BY user_uid, currency ORDER BY id) AS rn,
                       count(*) OVER (PARTITION BY user_uid, currency) AS n
                FROM new_entries WHERE d_balance <> 0
            ), counted AS (
                INSERT INTO ledger_movement_counts AS c (user_uid, currency, movements)
                SELECT user_uid, currency, count(*) FROM moves
                GROUP BY user_uid, currency ORDER BY user_uid, currency
                ON CONFLICT (user_uid, currency)
                DO UPDATE SET movements = c.movements + EXCLUDED.movements
                RETURNING c.user_uid, c.currency, c.movements
            )
            INSERT INTO ledger_movements (user_uid, currency, seq, entry_id)
            SELECT m.user_uid, m.currency, k.movements - m.n + m.rn, m.id
            FROM moves m JOIN counted k
              ON k.user_uid = m.user_uid AND k.currency = m.currency;
            RETURN NULL;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER ledger_entries_number AFTER INSERT ON ledger_entries
            REFERENCING NEW TABLE AS new_entries
            FOR EACH STATEMENT EXECUTE FUNCTION mccgw_number_movements();
        """
    )
    # Cache invalidation: every change of a ledger account (any process, any code path) and
    # every new price tells the API processes listening on mccgw_cache, at commit.
    op.execute(
        """
        CREATE FUNCTION mccgw_notify_balance() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify('mccgw_cache', NEW.user_uid || ':' || NEW.currency);
            RETURN NULL;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER ledger_accounts_notify AFTER INSERT OR UPDATE ON ledger_accounts
            FOR EACH ROW EXECUTE FUNCTION mccgw_notify_balance();
        CREATE FUNCTION mccgw_notify_price() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify('mccgw_cache', 'price');
            RETURN NULL;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER admin_prices_notify AFTER INSERT ON admin_prices
            FOR EACH STATEMENT EXECUTE FUNCTION mccgw_notify_price();
        CREATE TRIGGER price_closes_notify AFTER INSERT OR UPDATE ON price_closes
            FOR EACH STATEMENT EXECUTE FUNCTION mccgw_notify_price();
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TRIGGER IF EXISTS ledger_entries_number ON ledger_entries;
        DROP FUNCTION IF EXISTS mccgw_number_movements();
        DROP TRIGGER IF EXISTS price_closes_notify ON price_closes;
        DROP TRIGGER IF EXISTS admin_prices_notify ON admin_prices;
        DROP TRIGGER IF EXISTS ledger_accounts_notify ON ledger_accounts;
        DROP FUNCTION IF EXISTS mccgw_notify_price();
        DROP FUNCTION IF EXISTS mccgw_notify_balance();
        """
    )
    op.drop_table("ledger_movements")
    op.drop_table("ledger_movement_counts")
    op.drop_table("admin_prices")
    op.drop_table("price_closes")
    op.drop_index("ix_deposits_user", table_name="deposits")
    op.drop_table("deposits")
    op.drop_table("custody_watch")
