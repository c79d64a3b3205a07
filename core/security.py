"""Password hashing, project credential generation, and secrets encrypted at rest.

- Passwords: scrypt (stdlib), self-describing ``scrypt$n$r$p$salt$hash``.
- API secrets: a SHA-256 hash for the ``X-API-Key`` form, and AES-GCM ciphertext under the
  settings' master key (with its key id, for rotation) for HMAC verification (decisions.md).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import os
import secrets
from datetime import UTC, datetime, timedelta

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


# A rolled secret's predecessor (api_secret, OAuth client secret, webhook signing secret) keeps
# working this long by default, and at most 7 days (Stripe's roll).
DEFAULT_OVERLAP_SECONDS = 24 * 3600
MAX_OVERLAP_SECONDS = 7 * 24 * 3600


def previous_secret_until(expire_previous_in_seconds: int, has_current: bool) -> datetime | None:
    """Until when the secret being replaced keeps working: ``expire_previous_in_seconds`` from
    now, when there is one; None: it stops now (or there was none)."""
    if expire_previous_in_seconds > 0 and has_current:
        return datetime.now(UTC) + timedelta(seconds=expire_previous_in_seconds)
    return None


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P)
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${salt.hex()}${digest.hex()}"


@functools.cache
def dummy_password_hash() -> str:
    """A hash no password matches by chance, checked for unknown logins (equal cost)."""
    return hash_password(os.urandom(16).hex())


def verify_password(password: str, stored: str | None) -> bool:
    if not stored or not stored.startswith("scrypt$"):
        return False
    _, n, r, p, salt, digest = stored.split("$")
    candidate = hashlib.scrypt(
        password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p)
    )
    return hmac.compare_digest(candidate.hex(), digest)


def new_api_key() -> str:
    """Public identifier of a project's credentials."""
    return "pk_" + secrets.token_hex(16)


def new_api_secret() -> str:
    """32 random bytes, shown once (decisions.md)."""
    return "sk_" + secrets.token_hex(32)


def hash_api_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _key(master_key_b64: str) -> bytes:
    key = base64.b64decode(master_key_b64)
    if len(key) != 32:
        raise ValueError("MASTER_KEY must be 32 bytes, base64-encoded")
    return key


def encrypt_secret(secret: str, master_key_b64: str, key_id: str) -> str:
    """``<key_id>:<base64(nonce || ciphertext)>``; the key id is bound as associated data."""
    nonce = os.urandom(12)
    sealed = AESGCM(_key(master_key_b64)).encrypt(nonce, secret.encode(), key_id.encode())
    return f"{key_id}:{base64.b64encode(nonce + sealed).decode()}"


def decrypt_secret(stored: str, keys: dict[str, str]) -> str:
    """Decrypt with the master key named by the stored key id (``keys``: id -> base64 key)."""
    key_id, _, payload = stored.partition(":")
    if key_id not in keys:
        raise KeyError(f"no master key with id {key_id!r}")
    raw = base64.b64decode(payload)
    plain = AESGCM(_key(keys[key_id])).decrypt(raw[:12], raw[12:], key_id.encode())
    return plain.decode()
