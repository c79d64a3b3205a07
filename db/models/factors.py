"""Second factors and upstream identities (issue 44): a user's TOTP authenticator, their
single-use recovery codes, their passkeys (WebAuthn) and the challenges spent on them, and the
accounts of an upstream OpenID Connect provider linked to
local users (migration 0029)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, CreatedAt, IdentityPk, UserUid


class UserFactor(Base):
    __tablename__ = "user_factors"
    __table_args__ = (
        CheckConstraint("kind IN ('totp')", name="kind"),
        UniqueConstraint("user_uid", "kind"),
    )

    id: Mapped[IdentityPk]
    user_uid: Mapped[UserUid] = mapped_column(ForeignKey("users.uid", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    # The TOTP secret, sealed under the master key (core.security.encrypt_secret).
    secret_sealed: Mapped[str] = mapped_column(String(200))
    # The newest RFC 6238 time step accepted: a code is never accepted twice.
    last_step: Mapped[int | None]
    # None until the user typed a code from the authenticator (enrolment not finished).
    confirmed_at: Mapped[datetime | None]
    created_at: Mapped[CreatedAt]


class RecoveryCode(Base):
    __tablename__ = "recovery_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_uid: Mapped[UserUid] = mapped_column(
        ForeignKey("users.uid", ondelete="CASCADE"), index=True
    )
    used_at: Mapped[datetime | None]
    created_at: Mapped[CreatedAt]


class UpstreamIdentity(Base):
    __tablename__ = "upstream_identities"

    issuer: Mapped[str] = mapped_column(String(500), primary_key=True)
    subject: Mapped[str] = mapped_column(String(255), primary_key=True)
    user_uid: Mapped[UserUid] = mapped_column(
        ForeignKey("users.uid", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[CreatedAt]


class Passkey(Base):
    """A WebAuthn credential (a passkey) registered by a user: its public key (COSE) and the
    newest signature counter seen, which a clone of the authenticator would repeat."""

    __tablename__ = "passkeys"

    id: Mapped[IdentityPk]
    user_uid: Mapped[UserUid] = mapped_column(
        ForeignKey("users.uid", ondelete="CASCADE"), index=True
    )
    credential_id: Mapped[str] = mapped_column(String(1400), unique=True)  # base64url
    public_key: Mapped[str] = mapped_column(String(2000))  # COSE key, base64url
    sign_count: Mapped[int] = mapped_column(BigInteger)
    last_used_at: Mapped[datetime | None]
    created_at: Mapped[CreatedAt]


class SpentChallenge(Base):
    """A WebAuthn challenge already answered (SHA-256), kept until it would have expired: a
    ceremony's challenge is good once."""

    __tablename__ = "webauthn_challenges"

    challenge_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime]
