"""The server's RS256 signing key: generated once, kept in the DB with the private part
encrypted under the master key, cached in-process."""

from __future__ import annotations

import secrets
import threading
from typing import Any

from joserfc.jwk import KeySet, RSAKey
from sqlalchemy import select, text

from authserver.store import Store
from core.config import Settings
from core.security import decrypt_secret, encrypt_secret
from db.models.access import OAuthSigningKey

_LOCK_ID = 0x6D636377  # advisory lock: two processes starting at once create one key


class SigningKeys:
    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings
        self._mutex = threading.Lock()
        self._signing: KeySet | None = None
        self._public: dict[str, Any] | None = None

    def signing_keyset(self) -> KeySet:
        """A key set holding only the newest private key (joserfc then sets the kid header)."""
        self._load()
        assert self._signing is not None
        return self._signing

    def public_jwks(self) -> dict[str, Any]:
        """Every active public key, newest first."""
        self._load()
        assert self._public is not None
        return self._public

    def reload(self) -> None:
        with self._mutex:
            self._signing = self._public = None
        self._load()

    def _load(self) -> None:
        if self._signing is not None:
            return
        with self._mutex:
            if self._signing is not None:
                return
            rows = self._rows()
            keys = {self._settings.master_key_id: self._settings.master_key}
            pem = decrypt_secret(rows[0].private_key_encrypted, keys)
            private = RSAKey.import_key(
                pem, parameters={"kid": rows[0].kid, "use": "sig", "alg": "RS256"}
            )
            self._signing = KeySet([private])
            self._public = {"keys": [row.public_jwk for row in rows]}

    def _rows(self) -> list[OAuthSigningKey]:
        with self._store.session() as s, s.begin():
            query = (
                select(OAuthSigningKey)
                .where(OAuthSigningKey.active.is_(True))
                .order_by(OAuthSigningKey.created_at.desc())
            )
            rows = list(s.scalars(query))
            if rows:
                return rows
            s.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _LOCK_ID})
            rows = list(s.scalars(query))
            if rows:
                return rows
            s.add(self._generate())
        return self._rows()

    def _generate(self) -> OAuthSigningKey:
        kid = secrets.token_hex(8)
        params: dict[str, Any] = {"kid": kid, "use": "sig", "alg": "RS256"}
        key = RSAKey.generate_key(2048, parameters=params)  # type: ignore[arg-type]
        pem = key.as_pem(private=True).decode()
        return OAuthSigningKey(
            kid=kid,
            alg="RS256",
            private_key_encrypted=encrypt_secret(
                pem, self._settings.master_key, self._settings.master_key_id
            ),
            public_jwk={**key.as_dict(private=False), **params},
            active=True,
        )
