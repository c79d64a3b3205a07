"""An account's life as its owner lives it: sign-up (``SIGNUP_MODE``), the e-mail verification,
the password reset, the e-mail change with re-verification, and deletion. Flush-only: the
caller commits, then sends the ``Mail`` returned and publishes the revoked tokens
(``access.revocation.publish``). The links are accounts/links.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from access.consent import consent_clause
from access.revocation import RevokedToken
from accounts.errors import AccountExists, AccountRefused, BalancesNotZero, SignupClosed
from accounts.links import new_link, take_link
from accounts.mail import Mail
from accounts.operators import ensure_free, new_uid, revoke_all_tokens
from accounts.passwords import check_password, normal_email
from core.config import Settings
from core.security import hash_password, verify_password
from db.models import LedgerAccount, User
from db.models.access import OAuthConsent, UserProjectAttribute
from db.models.accounts import SignupInvite
from events.audit import Actor, audit_action

USERNAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{2,31}$")
EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class SignUp:
    username: str
    email: str
    password: str


def _url(settings: Settings, path: str, token: str) -> str:
    return f"{settings.auth_url.rstrip('/')}{path}?token={token}"


def _check_email(email: str) -> None:
    if len(email) > 255 or not EMAIL.match(email):
        raise AccountRefused("That is not an e-mail address", slug="invalid-email")


def _check_username(username: str) -> None:
    if not USERNAME.match(username):
        raise AccountRefused(
            "A username is 3 to 32 characters: lower-case letters, digits, '.', '_' or '-', "
            "starting with a letter or digit",
            slug="invalid-username",
        )


async def _may_sign_up(session: AsyncSession, settings: Settings, email: str) -> None:
    if settings.signup_mode == "off":
        raise SignupClosed("Sign-up is closed on this gateway")
    if settings.signup_mode == "invite" and await session.get(SignupInvite, email) is None:
        raise SignupClosed("Sign-up is by invitation only, and this address has none")


def _verify_mail(
    settings: Settings, email: str, token: str, username: str, next_url: str | None = None
) -> Mail:
    link = _url(settings, "/verify", token)
    if next_url:  # back to the authorization request the person signed up from
        link += "&next=" + quote(next_url, safe="")
    return Mail(
        email,
        "Verify your e-mail address",
        f"Hello {username},\n\nOpen this link to verify your e-mail address and finish "
        f"creating your account (it works once, within 24 hours):\n\n{link}\n\n"
        "If you did not sign up, ignore this message.\n",
    )


async def sign_up(
    session: AsyncSession, settings: Settings, form: SignUp, next_url: str | None = None
) -> Mail:
    """A new, unverified account; the verification mail to send."""
    username, email = form.username.strip().lower(), normal_email(form.email)
    _check_username(username)
    _check_email(email)
    await _may_sign_up(session, settings, email)
    check_password(form.password, username=username, email=email)
    await ensure_free(session, username, email)
    user = User(
        uid=new_uid(), username=username, email=email, role="user",
        password_hash=hash_password(form.password), email_verified=False,
    )  # fmt: skip
    session.add(user)
    await session.flush()
    actor = Actor(user.uid, None, None, role="user")
    audit_action(session, actor, "accounts.signup", None, user.uid, {"username": username,
                 "email": email}, {"uid": user.uid})  # fmt: skip
    token = await new_link(session, settings.secret_key, "verify", user.uid, email)
    return _verify_mail(settings, email, token, username, next_url)


async def _active_by_email(session: AsyncSession, email: str) -> User | None:
    return await session.scalar(
        select(User).where(User.email == normal_email(email), User.disabled_at.is_(None))
    )


async def resend_verification(session: AsyncSession, settings: Settings, email: str) -> Mail | None:
    """A new verification link for an account not verified yet (None: nothing to send; the
    page answers the same either way)."""
    user = await _active_by_email(session, email)
    if user is None or user.email_verified:
        return None
    token = await new_link(session, settings.secret_key, "verify", user.uid, user.email)
    return _verify_mail(settings, user.email, token, user.username)


async def verify_email(session: AsyncSession, settings: Settings, token: str) -> User:
    link = await take_link(session, settings.secret_key, "verify", token)
    user = await session.get(User, link.user_uid, with_for_update=True)
    if user is None or user.disabled_at is not None or user.email != link.email:
        raise AccountRefused("This account can no longer be verified", slug="invalid-link",
                             status=400)  # fmt: skip
    user.email_verified = True
    audit_action(session, Actor(user.uid, None, None, role="user"), "accounts.email.verify",
                 None, user.uid, {}, {"email": user.email})  # fmt: skip
    return user


async def request_reset(session: AsyncSession, settings: Settings, email: str) -> Mail | None:
    """The reset mail for an active account with that address (None: no such account; the
    caller answers the same either way)."""
    user = await _active_by_email(session, email)
    if user is None:
        return None
    token = await new_link(session, settings.secret_key, "reset", user.uid, user.email)
    link = _url(settings, "/reset/confirm", token)
    return Mail(
        user.email,
        "Reset your password",
        f"Hello {user.username},\n\nSomeone (we hope you) asked to reset the password of your "
        f"account. Open this link to choose a new one (it works once, within an hour):\n\n"
        f"{link}\n\nIf it was not you, ignore this message: your password stays as it is.\n",
    )


async def reset_password(
    session: AsyncSession, settings: Settings, token: str, password: str
) -> tuple[User, list[RevokedToken]]:
    """The new password; every token of the account is revoked (signed in elsewhere: again).
    Following the link proves the address too, so the account is verified."""
    link = await take_link(session, settings.secret_key, "reset", token)
    user = await session.get(User, link.user_uid, with_for_update=True)
    if user is None or user.disabled_at is not None:
        raise AccountRefused("This account can no longer be reset", slug="invalid-link",
                             status=400)  # fmt: skip
    check_password(password, username=user.username, email=user.email)
    user.password_hash = hash_password(password)
    if user.email == link.email:
        user.email_verified = True
    revoked = await revoke_all_tokens(session, user.uid)
    audit_action(session, Actor(user.uid, None, None, role="user"), "accounts.password.reset",
                 None, user.uid, {}, {"tokens_revoked": len(revoked)})  # fmt: skip
    return user, revoked


async def request_email_change(
    session: AsyncSession, settings: Settings, actor: Actor, new_email: str
) -> Mail:
    """A confirmation link to the new address; the account keeps its old address (and stays
    verified) until the link is followed."""
    email = normal_email(new_email)
    _check_email(email)
    user = await session.get(User, actor.uid)
    if user is None or user.disabled_at is not None:
        raise AccountRefused("This account cannot change its e-mail address")
    taken = await session.scalar(select(User.uid).where(User.email == email))
    if taken is not None:
        raise AccountExists("That e-mail address is already in use")
    token = await new_link(session, settings.secret_key, "email_change", user.uid, email)
    audit_action(session, actor, "accounts.email.change_requested", None, user.uid,
                 {"email": email}, {"status": "verification_sent"})  # fmt: skip
    link = _url(settings, "/email/confirm", token)
    return Mail(
        email,
        "Confirm your new e-mail address",
        f"Hello {user.username},\n\nOpen this link to make {email} the e-mail address of your "
        f"account (it works once, within 24 hours):\n\n{link}\n\n"
        "If you did not ask for this, ignore this message.\n",
    )


async def confirm_email_change(session: AsyncSession, settings: Settings, token: str) -> User:
    link = await take_link(session, settings.secret_key, "email_change", token)
    user = await session.get(User, link.user_uid, with_for_update=True)
    if user is None or user.disabled_at is not None:
        raise AccountRefused("This account can no longer change its address",
                             slug="invalid-link", status=400)  # fmt: skip
    taken = await session.scalar(
        select(User.uid).where(User.email == link.email, User.uid != user.uid)
    )
    if taken is not None:
        raise AccountExists("That e-mail address is already in use")
    before, user.email, user.email_verified = user.email, link.email, True
    audit_action(session, Actor(user.uid, None, None, role="user"), "accounts.email.change",
                 None, user.uid, {"from": before}, {"email": user.email})  # fmt: skip
    return user


async def balances_left(session: AsyncSession, uid: str) -> list[dict[str, Any]]:
    """The user's ledger accounts that still hold, reserve or send anything."""
    rows = await session.execute(
        select(
            LedgerAccount.currency, LedgerAccount.balance, LedgerAccount.held,
            LedgerAccount.pending_out,
        ).where(
            LedgerAccount.user_uid == uid,
            or_(LedgerAccount.balance != 0, LedgerAccount.held != 0,
                LedgerAccount.pending_out != 0),
        )
    )  # fmt: skip
    return [
        {"currency": c, "balance": str(b), "held": str(h), "pending_out": str(p)}
        for c, b, h, p in rows.all()
    ]


async def delete_account(session: AsyncSession, actor: Actor, password: str) -> list[RevokedToken]:
    """Erase the profile and close the account, confirmed by its password; the row stays (the
    ledger's rows name it), renamed so its username and address are free again. Refused while
    any balance is left."""
    user = await session.get(User, actor.uid, with_for_update=True)
    if user is None or user.deleted_at is not None:
        raise AccountRefused("This account is already deleted", status=409, slug="invalid-state")
    if not verify_password(password, user.password_hash):
        raise AccountRefused("That is not the account's password", slug="wrong-password")
    left = await balances_left(session, user.uid)
    if left:
        raise BalancesNotZero(
            "Withdraw or transfer every balance before deleting the account "
            "(held and outgoing amounts must be settled too)",
            balances=left,
        )
    now = datetime.now(UTC)
    user.username, user.email = f"deleted-{user.uid}", f"{user.uid}@deleted.invalid"
    user.password_hash = user.display_name = user.avatar_url = user.wallet_address = None
    user.email_verified, user.disabled_at, user.deleted_at = False, now, now
    await session.execute(
        update(OAuthConsent)
        .where(consent_clause(None, user.uid))  # every active consent of theirs
        .values(revoked_at=func.now())
    )
    await session.execute(delete(UserProjectAttribute).where(UserProjectAttribute.uid == user.uid))
    revoked = await revoke_all_tokens(session, user.uid)
    audit_action(session, actor, "accounts.delete", None, user.uid, {},
                 {"tokens_revoked": len(revoked)})  # fmt: skip
    return revoked
