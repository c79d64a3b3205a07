"""What account lifecycle links and sign-up invitations keep (accounts/, migration 0028)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, TimestampMixin, UserUid

LINK_PURPOSES = ("verify", "reset", "email_change")


class AccountLink(TimestampMixin, Base):
    """One e-mailed link (verify an address, reset a password, confirm a new address): the
    link itself is signed and names this row; the row makes it single-use."""

    __tablename__ = "account_links"
    __table_args__ = (CheckConstraint(f"purpose IN {LINK_PURPOSES!r}", name="purpose"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_uid: Mapped[UserUid] = mapped_column(
        ForeignKey("users.uid", ondelete="CASCADE"), index=True
    )
    purpose: Mapped[str] = mapped_column(String(20))
    # The address the link was sent to (for an e-mail change: the new address).
    email: Mapped[str] = mapped_column(String(255))
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class SignupInvite(TimestampMixin, Base):
    """An e-mail address allowed to sign up while ``SIGNUP_MODE=invite``."""

    __tablename__ = "signup_invites"

    email: Mapped[str] = mapped_column(String(255), primary_key=True)
    invited_by: Mapped[str] = mapped_column(String(120))
