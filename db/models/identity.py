"""Users of the ecosystem and the projects that call the gateway."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, CheckConstraint, Identity, Integer, String
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, TimestampMixin, UserUid

USER_ROLES = ("admin", "unit_manager", "unit_member", "user", "miner")
RATE_LIMIT_TIERS = ("free", "standard", "enterprise")
PROJECT_STATUSES = ("active", "maintenance", "testing", "discontinued", "deleted")


class User(TimestampMixin, Base):
    __tablename__ = "users"
    __table_args__ = (CheckConstraint(f"role IN {USER_ROLES!r}", name="role"),)

    uid: Mapped[UserUid] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(100), unique=True)
    email: Mapped[str] = mapped_column(String(255), unique=True)
    # scrypt hash (core.passwords); None for users that only come from the identity provider.
    password_hash: Mapped[str | None] = mapped_column(String(255))
    wallet_address: Mapped[str | None] = mapped_column(String(64))
    # When wallet_address last changed: withdrawals wait out a cooling-off after it.
    wallet_changed_at: Mapped[datetime | None]
    role: Mapped[str] = mapped_column(String(20), default="user", server_default="user")
    display_name: Mapped[str | None] = mapped_column(String(50))
    avatar_url: Mapped[str | None] = mapped_column(String(500))
    api_keys_configured: Mapped[bool] = mapped_column(Boolean, default=False, server_default="f")
    station_id: Mapped[int | None] = mapped_column(Integer)
    unit_id: Mapped[int | None] = mapped_column(Integer)
    # Accounts (accounts/, migration 0028): an account made by sign-up starts unverified;
    # one made by an operator, the seed or the identity provider is vouched for (the default).
    email_verified: Mapped[bool] = mapped_column(Boolean, default=True, server_default="t")
    # A disabled account cannot sign in and its tokens were revoked; a deleted one is also
    # disabled, its profile erased (the row stays: the ledger's rows name it).
    disabled_at: Mapped[datetime | None]
    deleted_at: Mapped[datetime | None]


class Project(TimestampMixin, Base):
    __tablename__ = "projects"
    __table_args__ = (
        CheckConstraint(f"rate_limit_tier IN {RATE_LIMIT_TIERS!r}", name="tier"),
        CheckConstraint(f"status IN {PROJECT_STATUSES!r}", name="status"),
    )

    # The spec's project_id is an integer assigned on approval; it travels as a string.
    project_id: Mapped[int] = mapped_column(Identity(start=1000), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str | None] = mapped_column(String(2000))
    webhook_url: Mapped[str | None] = mapped_column(String(500))
    allowed_scopes: Mapped[list[str]] = mapped_column(ARRAY(String(50)), default=list)
    rate_limit_tier: Mapped[str] = mapped_column(String(20), default="free")
    status: Mapped[str] = mapped_column(String(20), default="active", server_default="active")
    suspended: Mapped[bool] = mapped_column(Boolean, default=False, server_default="f")
    # Public identifier of the project's key pair (X-API-Key carries the secret itself).
    api_key: Mapped[str | None] = mapped_column(String(64), unique=True)
    # SHA-256 of the api_secret, for the X-API-Key form.
    api_secret_hash: Mapped[str | None] = mapped_column(String(128))
    # AES-GCM ciphertext of the api_secret with its key id, for HMAC verification.
    api_secret_encrypted: Mapped[str | None] = mapped_column(String(512))
    # A rolled api_secret (its hash and AES-GCM copy) keeps working until this instant.
    previous_api_secret_hash: Mapped[str | None] = mapped_column(String(128))
    previous_api_secret_encrypted: Mapped[str | None] = mapped_column(String(512))
    previous_secret_expires_at: Mapped[datetime | None]
    ip_allowlist: Mapped[list[str]] = mapped_column(ARRAY(String(64)), default=list)
    # Per-currency overrides of the amount limits: {"MCC": {"per_operation": "...", ...}}.
    limits: Mapped[dict[str, object]] = mapped_column(JSONB, default=dict)
    mcd_wallet_address: Mapped[str | None] = mapped_column(String(64))
    owner_uid: Mapped[str | None] = mapped_column(String(100))
