"""Access: authorization server records, consent grants, idempotency, audit, attributes.

Revision ID: 0003_access
Revises: 0002_chain_transactions
Create Date: 2026-11-22
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003_access"
down_revision: str | None = "0002_chain_transactions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)


def _timestamps() -> list[sa.Column[object]]:
    return [_now("created_at"), _now("updated_at")]


def _fk(column: str, target: str, type_: sa.types.TypeEngine[Any]) -> sa.Column[Any]:
    return sa.Column(column, type_, sa.ForeignKey(target, ondelete="CASCADE"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "oauth_signing_keys",
        sa.Column("kid", sa.String(64), primary_key=True),
        sa.Column("alg", sa.String(10), nullable=False),
        sa.Column("private_key_encrypted", sa.Text, nullable=False),
        sa.Column("public_jwk", postgresql.JSONB, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False, server_default="t"),
        _now("created_at"),
    )
    op.create_table(
        "oauth_clients",
        sa.Column("client_id", sa.String(64), primary_key=True),
        _fk("project_id", "projects.project_id", sa.BigInteger()),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("client_secret_hash", sa.String(128)),
        sa.Column("redirect_uris", postgresql.ARRAY(sa.String(500)), nullable=False),
        sa.Column("allowed_scopes", postgresql.ARRAY(sa.String(50)), nullable=False),
        sa.Column("grant_types", postgresql.ARRAY(sa.String(50)), nullable=False),
        sa.Column("access_token_format", sa.String(10), nullable=False, server_default="jwt"),
        *_timestamps(),
        sa.CheckConstraint("access_token_format IN ('jwt', 'opaque')", name="token_format"),
    )
    op.create_index("ix_oauth_clients_project_id", "oauth_clients", ["project_id"])
    op.create_table(
        "oauth_authorization_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        _fk("client_id", "oauth_clients.client_id", sa.String(64)),
        _fk("user_uid", "users.uid", sa.String(100)),
        sa.Column("redirect_uri", sa.String(500)),
        sa.Column("scope", sa.String(1000), nullable=False),
        sa.Column("nonce", sa.String(255)),
        sa.Column("code_challenge", sa.String(128)),
        sa.Column("code_challenge_method", sa.String(10)),
        sa.Column("auth_time", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "oauth_tokens",
        sa.Column("id", sa.Uuid, primary_key=True),
        _fk("client_id", "oauth_clients.client_id", sa.String(64)),
        _fk("user_uid", "users.uid", sa.String(100)),
        sa.Column("scope", sa.String(1000), nullable=False),
        sa.Column("jti", sa.String(64), unique=True),
        sa.Column("access_token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("refresh_token_hash", sa.String(64), unique=True),
        sa.Column("family_id", sa.Uuid, nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("access_expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("refresh_expires_at", sa.DateTime(timezone=True)),
        sa.Column("rotated_at", sa.DateTime(timezone=True)),
        sa.Column("access_revoked_at", sa.DateTime(timezone=True)),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
    )
    for column in ("client_id", "user_uid", "family_id"):
        op.create_index(f"ix_oauth_tokens_{column}", "oauth_tokens", [column])
    op.create_table(
        "oauth_consents",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _fk("user_uid", "users.uid", sa.String(100)),
        _fk("project_id", "projects.project_id", sa.BigInteger()),
        sa.Column("client_id", sa.String(64)),
        sa.Column("scopes", postgresql.ARRAY(sa.String(50)), nullable=False),
        sa.Column("source", sa.String(10), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
        *_timestamps(),
        sa.UniqueConstraint("user_uid", "project_id"),
    )
    op.create_index("ix_oauth_consents_project_id", "oauth_consents", ["project_id"])
    op.create_table(
        "idempotency_records",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("scope", sa.String(120), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("response_body", sa.LargeBinary, nullable=False),
        sa.Column("content_type", sa.String(100), nullable=False),
        _now("created_at"),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("scope", "key"),
    )
    op.create_index("ix_idempotency_records_expires_at", "idempotency_records", ["expires_at"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("project_id", sa.BigInteger),
        sa.Column("actor", sa.String(120), nullable=False),
        sa.Column("operation", sa.String(100), nullable=False),
        sa.Column("user_uid", sa.String(100)),
        sa.Column("request_body", postgresql.JSONB),
        sa.Column("response_body", postgresql.JSONB),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("status_code", sa.Integer),
        sa.Column("idempotency_key", sa.String(255)),
        sa.Column("client_ip", sa.String(64)),
        sa.Column("request_id", sa.String(128)),
        *_timestamps(),
        sa.CheckConstraint("status IN ('success', 'failed', 'pending')", name="status"),
    )
    op.create_index("ix_audit_log_project_created", "audit_log", ["project_id", "created_at"])
    op.create_index("ix_audit_log_user_uid", "audit_log", ["user_uid"])
    op.create_table(
        "user_project_attributes",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _fk("uid", "users.uid", sa.String(100)),
        _fk("project_id", "projects.project_id", sa.BigInteger()),
        sa.Column("attribute_key", sa.String(100), nullable=False),
        sa.Column("attribute_value", postgresql.JSONB, nullable=False),
        sa.Column("visibility", sa.String(12), nullable=False, server_default="private"),
        *_timestamps(),
        sa.UniqueConstraint("uid", "project_id", "attribute_key"),
        sa.CheckConstraint("visibility IN ('public', 'private', 'authorized')", name="visibility"),
    )
    op.create_index(
        "ix_user_project_attributes_project_id", "user_project_attributes", ["project_id"]
    )


def downgrade() -> None:
    for table in (
        "user_project_attributes",
        "audit_log",
        "idempotency_records",
        "oauth_consents",
        "oauth_tokens",
        "oauth_authorization_codes",
        "oauth_clients",
        "oauth_signing_keys",
    ):
        op.drop_table(table)
