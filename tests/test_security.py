"""Passwords and secrets kept at rest."""

from __future__ import annotations

import base64
import os

import pytest
from cryptography.exceptions import InvalidTag

from core.security import (
    decrypt_secret,
    encrypt_secret,
    hash_api_secret,
    hash_password,
    new_api_secret,
    verify_password,
)

KEY = base64.b64encode(os.urandom(32)).decode()


def test_password_roundtrip() -> None:
    stored = hash_password("correct horse")
    assert verify_password("correct horse", stored)
    assert not verify_password("wrong horse", stored)
    assert not verify_password("correct horse", None)
    assert hash_password("correct horse") != stored  # salted


def test_secret_is_encrypted_with_its_key_id() -> None:
    secret = new_api_secret()
    stored = encrypt_secret(secret, KEY, "k1")
    assert secret not in stored
    assert stored.startswith("k1:")
    assert decrypt_secret(stored, {"k1": KEY}) == secret
    with pytest.raises(KeyError):
        decrypt_secret(stored, {"k2": KEY})
    other = base64.b64encode(os.urandom(32)).decode()
    with pytest.raises(InvalidTag):
        decrypt_secret(stored, {"k1": other})


def test_api_secret_has_32_random_bytes_and_a_stable_hash() -> None:
    secret = new_api_secret()
    assert len(bytes.fromhex(secret.removeprefix("sk_"))) == 32
    assert hash_api_secret(secret) == hash_api_secret(secret)
    assert hash_api_secret(secret) != hash_api_secret(new_api_secret())
