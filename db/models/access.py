"""Access: the authorization server's records, consent grants, idempotency, audit, attributes.

- ``oauth_*``: signing keys, clients (each belongs to a project), authorization codes, issued
  tokens (one row per issuance; a refresh-token family shares ``family_id``).
- ``oauth_consents``: a user authorized a project; this is what lets the project act on them.
- ``idempotency_records``: the stored response of a write, unique on (scope, key), written in
  the same transaction as the write's effect.
- ``audit_log``: every transactional call, with secrets redacted.
- ``user_project_attributes``: attributes a project reports on a user.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    Uuid,
    func,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, IdentityPk, TimestampMixin, UpdatedAt, UserUid

AUDIT_STATUSES = ("success", "failed", "pending")
ATTRIBUTE_VISIBILITIES = ("public", "private", "authorized")
TOKEN_FORMATS = ("jwt", "opaque")


def _now_column() -> Mapped[datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now())


class OAuthSigningKey(Base):
    __tablename__ = "oauth_signing_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    alg: Mapped[str] = mapped_column(String(10), default="RS256")
    # PEM of the private key, AES-GCM encrypted under the master key (core.security).
    private_key_encrypted: Mapped[str] = mapped_column(Text)
    public_jwk: Mapped[dict[str, Any]] = mapped_column(JSONB)
    active: Mapped[bool] = mapped_column(Boolean, default=True, server_default="t")
    created_at: Mapped[datetime] = _now_column()


class OAuthClient(TimestampMixin, Base):
    __tablename__ = "oauth_clients"
    __table_args__ = (
        CheckConstraint(f"access_token_format IN {TOKEN_FORMATS!r}", name="token_format"),
    )

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    # NULL for the gateway's own first-party clients (the operator console): no project.
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("projects.project_id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    # SHA-256 of the client secret; NULL means a public client (PKCE required).
    client_secret_hash: Mapped[str | None] = mapped_column(String(128))
    # A rolled client secret keeps authenticating until this instant.
    previous_client_secret_hash: Mapped[str | None] = mapped_column(String(128))
    previous_secret_expires_at: Mapped[datetime | None]
    redirect_uris: Mapped[list[str]] = mapped_column(ARRAY(String(500)), default=list)
    allowed_scopes: Mapped[list[str]] = mapped_column(ARRAY(String(50)), default=list)
    grant_types: Mapped[list[str]] = mapped_column(ARRAY(String(50)), default=list)
    access_token_format: Mapped[str] = mapped_column(
        String(10), default="jwt", server_default="jwt"
    )
    # The gateway's own client (console, `mccgw token`): only its tokens carry admin power.
    first_party: Mapped[bool] = mapped_column(Boolean, default=False, server_default="f")


class OAuthAuthorizationCode(Base):
    __tablename__ = "oauth_authorization_codes"

    # Only the SHA-256 of the code is stored.
    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("oauth_clients.client_id", ondelete="CASCADE")
    )
    user_uid: Mapped[UserUid] = mapped_column(ForeignKey("users.uid", ondelete="CASCADE"))
    redirect_uri: Mapped[str | None] = mapped_column(String(500))
    scope: Mapped[str] = mapped_column(String(1000), default="")
    nonce: Mapped[str | None] = mapped_column(String(255))
    code_challenge: Mapped[str | None] = mapped_column(String(128))
    code_challenge_method: Mapped[str | None] = mapped_column(String(10))
    auth_time: Mapped[int]
    # How the user signed in (RFC 8176: pwd, otp), put in the tokens.
    amr: Mapped[list[str] | None] = mapped_column(ARRAY(String(16)))
    expires_at: Mapped[datetime]


class OAuthToken(Base):
    __tablename__ = "oauth_tokens"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("oauth_clients.client_id", ondelete="CASCADE"), index=True
    )
    user_uid: Mapped[str] = mapped_column(
        String(100), ForeignKey("users.uid", ondelete="CASCADE"), index=True
    )
    scope: Mapped[str] = mapped_column(String(1000), default="")
    jti: Mapped[str | None] = mapped_column(String(64), unique=True)
    # SHA-256 of the access token (opaque tokens are looked up by it) and of the refresh token.
    access_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    refresh_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    # Every rotation of one original grant shares the family; reuse revokes the family.
    family_id: Mapped[uuid.UUID] = mapped_column(Uuid, index=True)
    issued_at: Mapped[datetime]
    access_expires_at: Mapped[datetime]
    refresh_expires_at: Mapped[datetime | None]
    # Set when this refresh token was exchanged for a new pair (presenting it again = reuse).
    rotated_at: Mapped[datetime | None]
    access_revoked_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    # When the user signed in for this grant (Unix seconds), kept through its refreshes.
    auth_time: Mapped[int | None]
    # How they signed in (RFC 8176: pwd, otp), kept through its refreshes too.
    amr: Mapped[list[str] | None] = mapped_column(ARRAY(String(16)))


class OAuthConsent(TimestampMixin, Base):
    """A user authorized a project (through its OAuth client, or by an admin grant)."""

    __tablename__ = "oauth_consents"
    __table_args__ = (UniqueConstraint("user_uid", "project_id"),)

    id: Mapped[IdentityPk]
    user_uid: Mapped[UserUid] = mapped_column(ForeignKey("users.uid", ondelete="CASCADE"))
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.project_id", ondelete="CASCADE"), index=True
    )
    client_id: Mapped[str | None] = mapped_column(String(64))
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String(50)), default=list)
    source: Mapped[str] = mapped_column(String(10), default="oauth")
    revoked_at: Mapped[datetime | None]


class IdempotencyRecord(Base):
    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("scope", "key"),)

    id: Mapped[IdentityPk]
    # "p:<project_id>" or "u:<uid>"
    scope: Mapped[str] = mapped_column(String(120))
    key: Mapped[str] = mapped_column(String(255))
    # sha256 of method, path and the canonical body
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    response_body: Mapped[bytes] = mapped_column(LargeBinary)
    content_type: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = _now_column()
    expires_at: Mapped[datetime] = mapped_column(index=True)


class AuditLog(Base):
    __tablename__ = "audit_log"
    __table_args__ = (
        CheckConstraint(f"status IN {AUDIT_STATUSES!r}", name="status"),
        Index("ix_audit_log_project_created", "project_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    # No foreign keys: the audit trail outlives what it mentions.
    project_id: Mapped[int | None]
    actor: Mapped[str] = mapped_column(String(120))
    operation: Mapped[str] = mapped_column(String(100))
    user_uid: Mapped[str | None] = mapped_column(String(100), index=True)
    request_body: Mapped[Any] = mapped_column(JSONB, nullable=True)
    response_body: Mapped[Any] = mapped_column(JSONB, nullable=True)
    status: Mapped[str] = mapped_column(String(10))
    status_code: Mapped[int | None] = mapped_column(Integer)
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    client_ip: Mapped[str | None] = mapped_column(String(64))
    request_id: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = _now_column()
    updated_at: Mapped[UpdatedAt]


class UserProjectAttribute(TimestampMixin, Base):
    __tablename__ = "user_project_attributes"
    __table_args__ = (
        UniqueConstraint("uid", "project_id", "attribute_key"),
        CheckConstraint(f"visibility IN {ATTRIBUTE_VISIBILITIES!r}", name="visibility"),
    )

    id: Mapped[IdentityPk]
    uid: Mapped[UserUid] = mapped_column(ForeignKey("users.uid", ondelete="CASCADE"))
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.project_id", ondelete="CASCADE"), index=True
    )
    attribute_key: Mapped[str] = mapped_column(String(100))
    attribute_value: Mapped[Any] = mapped_column(JSONB)
    visibility: Mapped[str] = mapped_column(String(12), default="private", server_default="private")
