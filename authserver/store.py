"""Synchronous persistence for the authorization server.

authlib's grants and endpoints are synchronous, so the server runs them in a worker thread
with a plain (sync) SQLAlchemy engine; every function here is one short transaction.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Engine, delete, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session, sessionmaker

from access.revocation import RevokedToken
from db.models import Project, User
from db.models.access import OAuthAuthorizationCode, OAuthClient, OAuthConsent, OAuthToken

CODE_TTL = timedelta(minutes=10)
FIRST_PARTY_NAME = "mccgw"
REFRESH_TTL = timedelta(days=30)


def sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class UserInfo:
    uid: str
    username: str
    email: str
    role: str
    display_name: str | None
    # When the user signed in (Unix seconds) for the grant being served: the code's sign-in,
    # kept through refreshes (the access token's ``auth_time`` claim, access/fresh.py).
    auth_time: int | None = None
    # How they signed in (RFC 8176 ``amr``: pwd, otp, mfa), kept with the grant like auth_time.
    amr: tuple[str, ...] = ()

    def get_user_id(self) -> str:  # authlib's user protocol
        return self.uid


def _user(row: User) -> UserInfo:
    return UserInfo(row.uid, row.username, row.email, row.role, row.display_name)


class Store:
    def __init__(
        self, engine: Engine, on_revoked: Callable[[list[RevokedToken]], None] | None = None
    ) -> None:
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        # Told about every access token revoked (by RFC 7009 or by refresh-token reuse), so
        # the resource server can stop honouring it before it expires (authserver.server).
        self.on_revoked = on_revoked

    def _revoked(self, rows: list[OAuthToken]) -> None:
        if self.on_revoked is not None and rows:
            self.on_revoked(
                [
                    RevokedToken(
                        r.jti, r.access_token_hash, r.access_expires_at, r.client_id, r.user_uid
                    )
                    for r in rows
                ]
            )

    def session(self) -> Session:
        return self._sessions()

    # users -------------------------------------------------------------------------------
    def user_by_uid(self, uid: str) -> UserInfo | None:
        """An account that may still act: a disabled (or deleted) one is None, so its codes,
        refresh tokens and introspection answer nothing (accounts/operators.py)."""
        with self.session() as s:
            row = s.get(User, uid)
            return _user(row) if row and row.disabled_at is None else None

    def user_by_login(self, login: str) -> tuple[UserInfo, str | None] | None:
        """(user, password hash) by username, e-mail or uid, of an account that may sign in:
        not disabled, and its e-mail verified (an account made by sign-up verifies first)."""
        with self.session() as s:
            row = s.scalars(
                select(User).where(
                    (User.username == login) | (User.email == login) | (User.uid == login),
                    User.disabled_at.is_(None),
                    User.email_verified,
                )
            ).first()
            return (_user(row), row.password_hash) if row else None

    # clients -----------------------------------------------------------------------------
    def client(self, client_id: str) -> tuple[OAuthClient, str] | None:
        """The client row and its project's name (a first-party client has no project: the
        gateway's own name stands in)."""
        with self.session() as s:
            row = s.execute(
                select(OAuthClient, Project.name)
                .outerjoin(Project, Project.project_id == OAuthClient.project_id)
                .where(OAuthClient.client_id == client_id)
            ).first()
            return (row[0], row[1] or FIRST_PARTY_NAME) if row else None

    def first_client(self, exclude: tuple[str, ...] = ()) -> OAuthClient | None:
        """The gateway's own (first-party) client if there is one, else the oldest client."""
        with self.session() as s:
            return s.scalars(
                select(OAuthClient)
                .where(OAuthClient.client_id.not_in(exclude))
                .order_by(OAuthClient.first_party.desc(), OAuthClient.created_at)
            ).first()

    def ensure_first_party_client(
        self,
        client_id: str,
        *,
        name: str,
        secret_hash: str,
        redirect_uris: list[str],
        scopes: list[str],
    ) -> None:
        """Create or refresh a first-party client row (no project; authorization code only)."""
        values = {
            "name": name,
            "client_secret_hash": secret_hash,
            "redirect_uris": redirect_uris,
            "allowed_scopes": scopes,
            "grant_types": ["authorization_code"],
            "access_token_format": "jwt",
            "first_party": True,
        }
        with self.session() as s, s.begin():
            s.execute(
                insert(OAuthClient)
                .values(client_id=client_id, project_id=None, **values)
                .on_conflict_do_update(index_elements=["client_id"], set_=values)
            )

    # consent -----------------------------------------------------------------------------
    def record_consent(self, uid: str, project_id: int, client_id: str, scopes: list[str]) -> None:
        """The user authorized the project: this is what lets the project act on them."""
        with self.session() as s, s.begin():
            existing = s.scalars(
                select(OAuthConsent)
                .where(OAuthConsent.user_uid == uid, OAuthConsent.project_id == project_id)
                .with_for_update()
            ).first()
            if existing is None:
                s.execute(
                    insert(OAuthConsent)
                    .values(
                        user_uid=uid,
                        project_id=project_id,
                        client_id=client_id,
                        scopes=sorted(set(scopes)),
                        source="oauth",
                    )
                    .on_conflict_do_nothing()
                )
                return
            held = set() if existing.revoked_at else set(existing.scopes)
            existing.scopes = sorted(held | set(scopes))
            existing.client_id = client_id
            existing.revoked_at = None

    # authorization codes -----------------------------------------------------------------
    def save_code(self, code: str, values: dict[str, Any]) -> None:
        with self.session() as s, s.begin():
            s.add(
                OAuthAuthorizationCode(
                    code_hash=sha256(code),
                    expires_at=now() + CODE_TTL,
                    auth_time=int(now().timestamp()),
                    **values,
                )
            )

    def take_code(self, code: str, client_id: str) -> OAuthAuthorizationCode | None:
        """Delete and return the code: a code can be exchanged once, even under a race."""
        with self.session() as s, s.begin():
            row = s.scalars(
                delete(OAuthAuthorizationCode)
                .where(
                    OAuthAuthorizationCode.code_hash == sha256(code),
                    OAuthAuthorizationCode.client_id == client_id,
                )
                .returning(OAuthAuthorizationCode)
            ).first()
            if row is None or row.expires_at <= now():
                return None
            return row

    def nonce_exists(self, client_id: str, nonce: str) -> bool:
        with self.session() as s:
            found = s.scalars(
                select(OAuthAuthorizationCode.code_hash).where(
                    OAuthAuthorizationCode.client_id == client_id,
                    OAuthAuthorizationCode.nonce == nonce,
                )
            ).first()
            return found is not None

    # tokens ------------------------------------------------------------------------------
    def save_token(
        self,
        *,
        client_id: str,
        uid: str,
        scope: str,
        access_token: str,
        jti: str | None,
        expires_in: int,
        refresh_token: str | None,
        family_id: uuid.UUID | None,
        auth_time: int | None = None,
        amr: list[str] | None = None,
    ) -> None:
        issued = now()
        with self.session() as s, s.begin():
            s.add(
                OAuthToken(
                    client_id=client_id,
                    user_uid=uid,
                    scope=scope or "",
                    jti=jti,
                    access_token_hash=sha256(access_token),
                    refresh_token_hash=sha256(refresh_token) if refresh_token else None,
                    family_id=family_id or uuid.uuid4(),
                    issued_at=issued,
                    access_expires_at=issued + timedelta(seconds=expires_in),
                    refresh_expires_at=issued + REFRESH_TTL if refresh_token else None,
                    auth_time=auth_time,
                    amr=amr,
                )
            )

    def rotate_refresh(
        self, refresh_token: str, client_id: str | None = None
    ) -> tuple[OAuthToken | None, bool]:
        """Mark a refresh token used, atomically. Returns (row, reused).

        A token presented after it was rotated is a reuse: its whole family is revoked. With
        ``client_id``, a token of another client is neither rotated nor counted as reused (a
        wrong client must not burn the right client's token, nor revoke its family).
        """
        digest = sha256(refresh_token)
        same_client = [OAuthToken.client_id == client_id] if client_id is not None else []
        with self.session() as s, s.begin():
            row = s.scalars(
                update(OAuthToken)
                .where(
                    *same_client,
                    OAuthToken.refresh_token_hash == digest,
                    OAuthToken.rotated_at.is_(None),
                    OAuthToken.revoked_at.is_(None),
                    OAuthToken.refresh_expires_at > now(),
                )
                .values(rotated_at=now())
                .returning(OAuthToken)
            ).first()
            if row is not None:
                return row, False
            old = s.scalars(
                select(OAuthToken).where(OAuthToken.refresh_token_hash == digest, *same_client)
            ).first()
            if old is not None and old.rotated_at is not None:
                killed = _revoke_where(s, OAuthToken.family_id == old.family_id)
            else:
                return None, False
        # Reuse: every access token of the family dies with it, not just the refresh tokens.
        self._revoked(killed)
        return None, True

    def find_token(self, token: str, hint: str | None) -> tuple[OAuthToken, str] | None:
        """(row, "access_token" | "refresh_token") for a token string."""
        digest = sha256(token)
        order = ["refresh_token", "access_token"] if hint == "refresh_token" else [
            "access_token", "refresh_token"
        ]  # fmt: skip
        with self.session() as s:
            for kind in order:
                column = (
                    OAuthToken.access_token_hash
                    if kind == "access_token"
                    else OAuthToken.refresh_token_hash
                )
                row = s.scalars(select(OAuthToken).where(column == digest)).first()
                if row is not None:
                    return row, kind
        return None

    def revoke_user_project(self, uid: str, project_id: int) -> int:
        """The user withdrew their consent: every token a client of the project holds for them
        dies (refresh and access). Returns how many token rows were revoked."""
        with self.session() as s, s.begin():
            clients = select(OAuthClient.client_id).where(OAuthClient.project_id == project_id)
            killed = _revoke_where(
                s, OAuthToken.user_uid == uid, OAuthToken.client_id.in_(clients.scalar_subquery())
            )
        self._revoked(killed)
        return len(killed)

    def revoke(self, token_id: uuid.UUID, kind: str) -> None:
        """RFC 7009: revoking a refresh token revokes its family; an access token, itself."""
        with self.session() as s, s.begin():
            row = s.get(OAuthToken, token_id)
            if row is None:
                return
            if kind == "refresh_token":
                killed = _revoke_where(s, OAuthToken.family_id == row.family_id)
            else:
                row.access_revoked_at = now()
                killed = [row]
        self._revoked(killed)


def _revoke_where(s: Session, *conditions: ColumnElement[bool]) -> list[OAuthToken]:
    """Revoke the live tokens matching ``conditions`` in one UPDATE; the rows it revoked."""
    return list(
        s.scalars(
            update(OAuthToken)
            .where(*conditions, OAuthToken.revoked_at.is_(None))
            .values(revoked_at=now())
            .returning(OAuthToken)
        )
    )
