"""The e-mailed links of the account lifecycle: signed, expiring, single-use.

A link's token is ``<row id>.<expiry, Unix seconds>.<HMAC-SHA256>`` of the purpose, the row and
the expiry under ``SECRET_KEY``: a forged or altered token fails the signature before any row is
read, an old one its expiry, and its ``account_links`` row (marked used when it is taken, in
the same transaction as what it does) makes it work once. Taking a link also spends the other
live links of the same user and purpose (an older reset link dies with the newer one's use)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from accounts.errors import LinkInvalid
from db.models.accounts import AccountLink

TTL = {
    "verify": timedelta(hours=24),
    "reset": timedelta(hours=1),
    "email_change": timedelta(hours=24),
}
INVALID = "This link is not valid: it expired, was already used, or was altered"


def _signature(secret: str, purpose: str, link_id: uuid.UUID, expires: int) -> str:
    message = f"account-link|{purpose}|{link_id}|{expires}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


async def new_link(session: AsyncSession, secret: str, purpose: str, uid: str, email: str) -> str:
    """A new link of ``purpose`` for the user (sent to ``email``); its token."""
    now = datetime.now(UTC)
    expires = now + TTL[purpose]
    row = AccountLink(
        id=uuid.uuid4(), user_uid=uid, purpose=purpose, email=email, expires_at=expires
    )
    session.add(row)
    await session.flush()
    stamp = int(expires.timestamp())
    return f"{row.id.hex}.{stamp}.{_signature(secret, purpose, row.id, stamp)}"


def _parse(secret: str, purpose: str, token: str) -> uuid.UUID:
    try:
        raw_id, raw_expires, signature = token.strip().split(".")
        link_id, expires = uuid.UUID(hex=raw_id), int(raw_expires)
    except ValueError as exc:
        raise LinkInvalid(INVALID) from exc
    if not hmac.compare_digest(signature, _signature(secret, purpose, link_id, expires)):
        raise LinkInvalid(INVALID)
    if expires <= datetime.now(UTC).timestamp():
        raise LinkInvalid(INVALID)
    return link_id


async def peek_link(session: AsyncSession, secret: str, purpose: str, token: str) -> AccountLink:
    """The live link the token names, not taken (a page that asks before it acts)."""
    row = await session.get(AccountLink, _parse(secret, purpose, token))
    if row is None or row.purpose != purpose or row.used_at is not None:
        raise LinkInvalid(INVALID)
    if row.expires_at <= datetime.now(UTC):
        raise LinkInvalid(INVALID)
    return row


async def take_link(session: AsyncSession, secret: str, purpose: str, token: str) -> AccountLink:
    """Spend the link (locked, marked used; the caller's commit makes it final)."""
    link_id = _parse(secret, purpose, token)
    row = await session.scalar(
        select(AccountLink).where(AccountLink.id == link_id).with_for_update()
    )
    if row is None or row.purpose != purpose or row.used_at is not None:
        raise LinkInvalid(INVALID)
    now = datetime.now(UTC)
    if row.expires_at <= now:
        raise LinkInvalid(INVALID)
    await session.execute(
        update(AccountLink)
        .where(
            AccountLink.user_uid == row.user_uid,
            AccountLink.purpose == purpose,
            AccountLink.used_at.is_(None),
        )
        .values(used_at=now)
    )
    return row
