"""Passkeys (WebAuthn, issue 44): a second factor in place of the TOTP code, or a sign-in with
no password at all. The ceremonies are the ``webauthn`` package's; this module keeps their
state and the credentials (table ``passkeys``), synchronous like authserver.store.

- The relying party is WEBAUTHN_RP_ID, by default the host of BASE_URL (``localhost`` when that
  host is an IP address: an RP ID is a domain); the one origin accepted is BASE_URL's with that
  host. User verification is required, so a passkey sign-in is multi-factor (RFC 8176: hwk,
  user verified: mfa).
- A ceremony's challenge rides in a sealed ticket (core.sealed, five minutes) and is good once:
  answering it records its hash (``webauthn_challenges``) and a second answer is refused.
- The authenticator's signature counter must grow (the package refuses a counter that did not,
  a sign of a cloned authenticator); the newest is stored, by a compare-and-set.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit

import webauthn
from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from authserver.store import Store, sha256
from core import sealed
from core.config import Settings
from db.models.factors import Passkey, SpentChallenge

TICKET = "passkey_ticket"
CREDENTIAL = "passkey"
TTL = 300
RP_NAME = "mccgw"
SIGN_IN_AMR = ("hwk", "user", "mfa")  # a user-verified passkey alone
SECOND_STEP_AMR = ("pwd", "hwk", "mfa")
_PURPOSE = "mccgw-authserver-passkey"
_REQUIRED = UserVerificationRequirement.REQUIRED


@dataclass(frozen=True)
class RelyingParty:
    rp_id: str
    origin: str


def relying_party(settings: Settings) -> RelyingParty:
    base = urlsplit(settings.base_url)
    host = base.hostname or "localhost"
    try:
        ip_address(host)
        host = "localhost"
    except ValueError:
        pass
    port = f":{base.port}" if base.port else ""
    return RelyingParty(settings.webauthn_rp_id or host, f"{base.scheme}://{host}{port}")


@dataclass(frozen=True)
class Ceremony:
    """What a page carries: the options for the browser (JSON) and the sealed ticket."""

    options: str
    ticket: str


def _ticket(settings: Settings, kind: str, challenge: bytes, **more: Any) -> str:
    payload = {"kind": kind, "challenge": bytes_to_base64url(challenge),
               "exp": time.time() + TTL, **more}  # fmt: skip
    return sealed.seal(settings.secret_key, _PURPOSE, TICKET, payload)


def _opened(settings: Settings, kind: str, raw: str | None) -> dict[str, Any] | None:
    ticket = sealed.unseal(settings.secret_key, _PURPOSE, TICKET, raw)
    return ticket if ticket is not None and ticket.get("kind") == kind else None


class Passkeys:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.rp = relying_party(settings)

    def credential_ids(self, uid: str) -> list[str]:
        with self.store.session() as s:
            return list(s.scalars(select(Passkey.credential_id).where(Passkey.user_uid == uid)))

    def _descriptors(self, uid: str) -> list[PublicKeyCredentialDescriptor]:
        ids = self.credential_ids(uid)
        return [PublicKeyCredentialDescriptor(id=webauthn.base64url_to_bytes(i)) for i in ids]

    # -- registration -----------------------------------------------------------------------

    def registration(self, uid: str, username: str) -> Ceremony:
        options = webauthn.generate_registration_options(
            rp_id=self.rp.rp_id, rp_name=RP_NAME, user_name=username, user_id=uid.encode(),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, user_verification=_REQUIRED),
            exclude_credentials=self._descriptors(uid), timeout=TTL * 1000,
        )  # fmt: skip
        ticket = _ticket(self.settings, "register", options.challenge, uid=uid, name=username)
        return Ceremony(webauthn.options_to_json(options), ticket)

    def register(self, raw_ticket: str | None, credential: str) -> str | None:
        """Verify the browser's answer to a registration and keep the passkey: the user's uid,
        or None (expired, replayed or a wrong answer)."""
        ticket = _opened(self.settings, "register", raw_ticket)
        if ticket is None or not self._spend(ticket):
            return None
        try:
            done = webauthn.verify_registration_response(
                credential=credential,
                expected_challenge=webauthn.base64url_to_bytes(ticket["challenge"]),
                expected_rp_id=self.rp.rp_id, expected_origin=self.rp.origin,
                require_user_verification=True,
            )  # fmt: skip
        except (InvalidRegistrationResponse, ValueError, KeyError, TypeError):
            return None
        uid = str(ticket["uid"])
        with self.store.session() as s, s.begin():
            s.execute(
                insert(Passkey)
                .values(
                    user_uid=uid,
                    credential_id=bytes_to_base64url(done.credential_id),
                    public_key=bytes_to_base64url(done.credential_public_key),
                    sign_count=done.sign_count,
                )
                .on_conflict_do_nothing()
            )
        return uid

    # -- authentication ---------------------------------------------------------------------

    def authentication(self, uid: str | None = None, **more: Any) -> Ceremony:
        """Options to sign in: with any passkey of this site (``uid`` None, password-less), or
        with one of ``uid``'s (the second step after a password)."""
        options = webauthn.generate_authentication_options(
            rp_id=self.rp.rp_id, user_verification=_REQUIRED, timeout=TTL * 1000,
            allow_credentials=self._descriptors(uid) if uid else None,
        )  # fmt: skip
        ticket = _ticket(self.settings, "sign-in", options.challenge, uid=uid, **more)
        return Ceremony(webauthn.options_to_json(options), ticket)

    def ticket(self, raw: str | None) -> dict[str, Any] | None:
        return _opened(self.settings, "sign-in", raw)

    def authenticate(self, ticket: dict[str, Any], credential: str) -> str | None:
        """The uid of the passkey's owner when ``credential`` answers the ticket's challenge
        (once) from the right origin with a grown counter; else None."""
        if not self._spend(ticket):
            return None
        try:
            parsed = webauthn.helpers.parse_authentication_credential_json(credential)
        except (ValueError, KeyError, TypeError, InvalidAuthenticationResponse):
            return None
        with self.store.session() as s:
            key = s.scalars(
                select(Passkey).where(Passkey.credential_id == bytes_to_base64url(parsed.raw_id))
            ).first()
        if key is None or (ticket.get("uid") not in (None, key.user_uid)):
            return None
        try:
            done = webauthn.verify_authentication_response(
                credential=parsed,
                expected_challenge=webauthn.base64url_to_bytes(ticket["challenge"]),
                expected_rp_id=self.rp.rp_id, expected_origin=self.rp.origin,
                credential_public_key=webauthn.base64url_to_bytes(key.public_key),
                credential_current_sign_count=key.sign_count, require_user_verification=True,
            )  # fmt: skip
        except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError):
            return None
        with self.store.session() as s, s.begin():
            moved = s.scalar(
                update(Passkey)
                .where(Passkey.id == key.id, Passkey.sign_count == key.sign_count)
                .values(sign_count=done.new_sign_count, last_used_at=datetime.now(UTC))
                .returning(Passkey.id)
            )
        return key.user_uid if moved is not None else None

    def _spend(self, ticket: dict[str, Any]) -> bool:
        """Record the ticket's challenge as answered; False when it already was."""
        now = datetime.now(UTC)
        with self.store.session() as s, s.begin():
            s.execute(delete(SpentChallenge).where(SpentChallenge.expires_at < now))
            spent = s.scalar(
                insert(SpentChallenge)
                .values(
                    challenge_hash=sha256(str(ticket["challenge"])),
                    expires_at=now + timedelta(seconds=TTL + 60),
                )
                .on_conflict_do_nothing()
                .returning(SpentChallenge.challenge_hash)
            )
        return spent is not None
