"""Second factors of the authorization server (issue 44): TOTP (RFC 6238) with single-use
recovery codes. Synchronous, like the rest of the server (authserver.store): each call is one
short transaction.

- The TOTP secret is sealed under the master key at rest; a code is accepted within one time
  step either side of now, and never twice: the newest step accepted is kept (``last_step``),
  so a code seen over someone's shoulder is spent once it was used.
- Recovery codes (ten, shown once at enrolment) are random, kept as SHA-256 only, each good
  once; enrolling again replaces them.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

import pyotp
from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert

from authserver.store import Store, sha256
from core.config import Settings
from core.security import decrypt_secret, encrypt_secret
from db.models.factors import RecoveryCode, UserFactor

RECOVERY_CODES = 10
WINDOW = 1  # time steps of 30 s accepted either side of now (clock drift)
ISSUER_NAME = "mccgw"


@dataclass(frozen=True)
class NewTotp:
    """An authenticator being enrolled: its secret (base32) and the otpauth:// URI a phone's
    app reads (RFC 6238 parameters: SHA-1, 6 digits, 30 s)."""

    secret: str
    uri: str


def new_totp(username: str) -> NewTotp:
    secret = pyotp.random_base32()
    return NewTotp(secret, totp_uri(username, secret))


def totp_uri(username: str, secret: str) -> str:
    return pyotp.TOTP(secret).provisioning_uri(name=username, issuer_name=ISSUER_NAME)


def matching_step(secret: str, code: str, after: int | None, at: datetime | None = None) -> int:
    """The time step within the window whose code is ``code`` and is newer than ``after``; -1
    when none is."""
    code = code.strip().replace(" ", "")
    if not (code.isdigit() and len(code) == 6):
        return -1
    totp = pyotp.TOTP(secret)
    now = totp.timecode(at or datetime.now(UTC))
    for step in range(now - WINDOW, now + WINDOW + 1):
        fresh = after is None or step > after
        if fresh and secrets.compare_digest(totp.generate_otp(step), code):
            return step
    return -1


def seal_secret(settings: Settings, secret: str) -> str:
    """The TOTP secret as stored: sealed under the master key."""
    return encrypt_secret(secret, settings.master_key, settings.master_key_id)


def open_secret(settings: Settings, sealed: str) -> str:
    return decrypt_secret(sealed, {settings.master_key_id: settings.master_key})


def _normal(code: str) -> str:
    return code.strip().lower().replace("-", "").replace(" ", "")


class Factors:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self._settings = settings

    def _seal(self, secret: str) -> str:
        return seal_secret(self._settings, secret)

    def has_totp(self, uid: str) -> bool:
        with self.store.session() as s:
            found = s.scalar(
                select(UserFactor.id).where(
                    UserFactor.user_uid == uid,
                    UserFactor.kind == "totp",
                    UserFactor.confirmed_at.is_not(None),
                )
            )
            return found is not None

    def check_totp(self, uid: str, code: str) -> bool:
        """Whether ``code`` is the user's authenticator's current code (then it is spent)."""
        with self.store.session() as s, s.begin():
            row = s.scalars(
                select(UserFactor)
                .where(UserFactor.user_uid == uid, UserFactor.kind == "totp")
                .with_for_update()
            ).first()
            if row is None or row.confirmed_at is None:
                return False
            step = matching_step(
                open_secret(self._settings, row.secret_sealed), code, row.last_step
            )
            if step < 0:
                return False
            row.last_step = step
            return True

    def use_recovery_code(self, uid: str, code: str) -> bool:
        """Spend one of the user's recovery codes (each works once)."""
        with self.store.session() as s, s.begin():
            spent = s.scalar(
                update(RecoveryCode)
                .where(
                    RecoveryCode.user_uid == uid,
                    RecoveryCode.code_hash == sha256(_normal(code)),
                    RecoveryCode.used_at.is_(None),
                )
                .values(used_at=datetime.now(UTC))
                .returning(RecoveryCode.code_hash)
            )
            return spent is not None

    def recovery_codes_left(self, uid: str) -> int:
        with self.store.session() as s:
            rows = s.scalars(
                select(RecoveryCode.code_hash).where(
                    RecoveryCode.user_uid == uid, RecoveryCode.used_at.is_(None)
                )
            )
            return len(list(rows))

    def confirm_totp(self, uid: str, secret: str, code: str) -> list[str] | None:
        """Finish an enrolment: ``code`` must come from the new authenticator. Replaces any
        earlier authenticator and recovery codes; returns the new recovery codes (shown once),
        or None when the code is wrong."""
        step = matching_step(secret, code, None)
        if step < 0:
            return None
        codes = ["-".join(secrets.token_hex(3) for _ in range(3)) for _ in range(RECOVERY_CODES)]
        values = {
            "secret_sealed": self._seal(secret),
            "last_step": step,
            "confirmed_at": datetime.now(UTC),
        }
        with self.store.session() as s, s.begin():
            s.execute(
                insert(UserFactor)
                .values(user_uid=uid, kind="totp", **values)
                .on_conflict_do_update(index_elements=["user_uid", "kind"], set_=values)
            )
            s.execute(delete(RecoveryCode).where(RecoveryCode.user_uid == uid))
            s.add_all(RecoveryCode(user_uid=uid, code_hash=sha256(_normal(c))) for c in codes)
        return codes
