"""Second factors and upstream identities (issue 44, items 4 and 5).

- user_factors: a user's TOTP authenticator (RFC 6238; its secret sealed under the master key,
  ``last_step`` the newest time step used, so a code is never accepted twice); confirmed once
  the user typed a code from it.
- recovery_codes: single-use codes shown once at enrolment, kept as SHA-256 only.
- passkeys: a user's WebAuthn credentials (public key, newest signature counter);
  webauthn_challenges: the challenges already answered, kept until they expire (single use).
- upstream_identities: a person who signed in through an upstream OpenID Connect provider,
  linked to their local account by (issuer, subject).
- oauth_authorization_codes.amr / oauth_tokens.amr: how the user signed in for the grant
  (RFC 8176 values: pwd, otp), put in the tokens and kept through refreshes.

Revision ID: 0029_factors
Revises: 0028_accounts
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0029_factors"
down_revision: str | Sequence[str] | None = "0028_accounts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _user_fk(table: str) -> sa.Column[str]:
    return sa.Column(
        "user_uid",
        sa.String(100),
        sa.ForeignKey("users.uid", ondelete="CASCADE", name=f"fk_{table}_user_uid_users"),
        nullable=False,
    )


def _created() -> sa.Column[object]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "user_factors",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        _user_fk("user_factors"),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("secret_sealed", sa.String(200), nullable=False),
        sa.Column("last_step", sa.BigInteger(), nullable=True),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.CheckConstraint("kind IN ('totp')", name="ck_user_factors_kind"),
        sa.UniqueConstraint("user_uid", "kind", name="uq_user_factors_user_uid"),
    )
    op.create_table(
        "recovery_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        _user_fk("recovery_codes"),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
    )
    op.create_index("ix_recovery_codes_user_uid", "recovery_codes", ["user_uid"])
    op.create_table(
        "passkeys",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        _user_fk("passkeys"),
        sa.Column("credential_id", sa.String(1400), nullable=False),
        sa.Column("public_key", sa.String(2000), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.UniqueConstraint("credential_id", name="uq_passkeys_credential_id"),
    )
    op.create_index("ix_passkeys_user_uid", "passkeys", ["user_uid"])
    op.create_table(
        "webauthn_challenges",
        sa.Column("challenge_hash", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "upstream_identities",
        sa.Column("issuer", sa.String(500), primary_key=True),
        sa.Column("subject", sa.String(255), primary_key=True),
        _user_fk("upstream_identities"),
        _created(),
    )
    op.create_index("ix_upstream_identities_user_uid", "upstream_identities", ["user_uid"])
    for table in ("oauth_authorization_codes", "oauth_tokens"):
        op.add_column(table, sa.Column("amr", postgresql.ARRAY(sa.String(16)), nullable=True))


def downgrade() -> None:
    for table in ("oauth_authorization_codes", "oauth_tokens"):
        op.drop_column(table, "amr")
    op.drop_table("upstream_identities")
    op.drop_table("webauthn_challenges")
    op.drop_table("passkeys")
    op.drop_table("recovery_codes")
    op.drop_table("user_factors")
