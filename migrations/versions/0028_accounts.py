"""Accounts (issue 44, the accounts half): people who sign up, verify, recover and leave.

- users.email_verified: false for an account made by sign-up until its address is verified
  (every existing row, and an operator's or the seed's account, is vouched for: true).
- users.disabled_at: an operator disabled the account (``mccgw users disable``) or its owner
  deleted it; it cannot sign in and its tokens were revoked.
- users.deleted_at: the owner deleted the account; its profile is erased, the row stays for the
  ledger's rows that name it.
- account_links: one row per e-mailed link (verify, reset, e-mail change): the link is signed
  and names its row, the row makes it single-use (accounts/links.py).
- signup_invites: the addresses allowed to sign up while ``SIGNUP_MODE=invite``.

Revision ID: 0028_accounts
Revises: 0027_write_fees
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028_accounts"
down_revision: str | Sequence[str] | None = "0027_write_fees"
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
    op.add_column(
        "users",
        sa.Column("email_verified", sa.Boolean(), server_default=sa.text("true"), nullable=False),
    )
    op.add_column("users", sa.Column("disabled_at", sa.DateTime(timezone=True)))
    op.add_column("users", sa.Column("deleted_at", sa.DateTime(timezone=True)))
    op.create_table(
        "account_links",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "user_uid",
            sa.String(100),
            sa.ForeignKey("users.uid", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("purpose", sa.String(20), nullable=False),
        sa.Column("email", sa.String(255), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True)),
        *_timestamps(),
        sa.CheckConstraint("purpose IN ('verify', 'reset', 'email_change')", name="purpose"),
    )
    op.create_index("ix_account_links_user_uid", "account_links", ["user_uid"])
    op.create_table(
        "signup_invites",
        sa.Column("email", sa.String(255), primary_key=True),
        sa.Column("invited_by", sa.String(120), nullable=False),
        *_timestamps(),
    )


def downgrade() -> None:
    op.drop_table("signup_invites")
    op.drop_index("ix_account_links_user_uid", table_name="account_links")
    op.drop_table("account_links")
    op.drop_column("users", "deleted_at")
    op.drop_column("users", "disabled_at")
    op.drop_column("users", "email_verified")
