"""What an operator does to accounts from the command line (``mccgw admin``, ``mccgw users``):
create an administrator, grant or revoke the admin role, disable an account, invite an e-mail
address. Flush-only: the caller commits, then publishes the revoked tokens
(``access.revocation.publish``). Each action writes the one operator-audit row
(``events.audit.audit_action``) with the operator as actor."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from sqlalchemy import or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from access.revocation import RevokedToken
from accounts.errors import AccountExists, UnknownUser
from accounts.passwords import check_password, normal_email
from core.security import hash_password
from db.models import User
from db.models.access import OAuthToken
from db.models.accounts import SignupInvite
from events.audit import Actor, audit_action


def operator(name: str) -> Actor:
    """The audit actor of a command typed by ``name`` (the OS user) on this machine."""
    return Actor(uid=name, client_ip=None, request_id=None, role="operator", kind="operator")


def new_uid() -> str:
    return f"u_{secrets.token_hex(8)}"


async def find_user(session: AsyncSession, login: str, *, lock: bool = False) -> User:
    """The user named by uid, username or e-mail; 404 otherwise."""
    statement = select(User).where(
        or_(User.uid == login, User.username == login, User.email == normal_email(login))
    )
    row = (await session.scalars(statement.with_for_update() if lock else statement)).first()
    if row is None:
        raise UnknownUser(f"No user {login!r}")
    return row


async def ensure_free(session: AsyncSession, username: str, email: str) -> None:
    taken = await session.scalar(
        select(User.uid).where(or_(User.username == username, User.email == email)).limit(1)
    )
    if taken is not None:
        raise AccountExists("That username or e-mail address is already in use")


async def create_admin(
    session: AsyncSession, actor: Actor, username: str, email: str, password: str
) -> User:
    """A new administrator whose e-mail the operator vouches for (verified)."""
    username, email = username.strip(), normal_email(email)
    check_password(password, username=username, email=email)
    await ensure_free(session, username, email)
    user = User(
        uid=new_uid(),
        username=username,
        email=email,
        password_hash=hash_password(password),
        role="admin",
        email_verified=True,
    )
    session.add(user)
    await session.flush()
    audit_action(
        session, actor, "accounts.admin.create", None, user.uid,
        {"username": username, "email": email}, {"uid": user.uid, "role": "admin"},
    )  # fmt: skip
    return user


async def set_role(session: AsyncSession, actor: Actor, login: str, admin: bool) -> User:
    """Grant (``admin``) or revoke the admin role; revoking leaves the plain ``user`` role."""
    user = await find_user(session, login, lock=True)
    before = user.role
    user.role = "admin" if admin else ("user" if user.role == "admin" else user.role)
    operation = "accounts.admin.grant" if admin else "accounts.admin.revoke"
    audit_action(
        session, actor, operation, None, user.uid, {"user": login},
        {"uid": user.uid, "role_before": before, "role": user.role},
    )  # fmt: skip
    return user


async def revoke_all_tokens(session: AsyncSession, uid: str) -> list[RevokedToken]:
    """Revoke every live token of the user (all clients); what the caller publishes after
    its commit, so the resource servers stop honouring them at once."""
    now = datetime.now(UTC)
    rows = (
        await session.scalars(
            update(OAuthToken)
            .where(OAuthToken.user_uid == uid, OAuthToken.revoked_at.is_(None))
            .values(revoked_at=now)
            .returning(OAuthToken)
        )
    ).all()
    return [
        RevokedToken(r.jti, r.access_token_hash, r.access_expires_at, r.client_id, r.user_uid)
        for r in rows
    ]


async def disable(
    session: AsyncSession, actor: Actor, login: str
) -> tuple[User, list[RevokedToken]]:
    """The account can no longer sign in; its tokens are revoked (published by the caller)."""
    user = await find_user(session, login, lock=True)
    if user.disabled_at is None:
        user.disabled_at = datetime.now(UTC)
    revoked = await revoke_all_tokens(session, user.uid)
    audit_action(
        session, actor, "accounts.user.disable", None, user.uid, {"user": login},
        {"uid": user.uid, "tokens_revoked": len(revoked)},
    )  # fmt: skip
    return user, revoked


async def invite(session: AsyncSession, actor: Actor, email: str) -> str:
    """Allow ``email`` to sign up while ``SIGNUP_MODE=invite``."""
    email = normal_email(email)
    await session.execute(
        insert(SignupInvite)
        .values(email=email, invited_by=f"{actor.kind}:{actor.uid}")
        .on_conflict_do_nothing()
    )
    audit_action(session, actor, "accounts.invite", None, None, {"email": email}, {"email": email})
    return email
