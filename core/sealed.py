"""Sealed values: a small JSON payload encrypted and authenticated (AES-GCM) under a key derived
from SECRET_KEY and a purpose, bound to a name, with an expiry (``exp``, Unix seconds). The
console's cookies and the authorization server's sign-in steps carry their state in them."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def _key(secret_key: str, purpose: str) -> bytes:
    return hashlib.sha256(f"{purpose}|".encode() + secret_key.encode()).digest()


def seal(secret_key: str, purpose: str, name: str, payload: dict[str, Any]) -> str:
    nonce = os.urandom(12)
    data = AESGCM(_key(secret_key, purpose)).encrypt(
        nonce, json.dumps(payload).encode(), name.encode()
    )
    return base64.urlsafe_b64encode(nonce + data).decode().rstrip("=")


def unseal(secret_key: str, purpose: str, name: str, value: str | None) -> dict[str, Any] | None:
    """The payload, or None when the value is missing, forged, tampered with or expired."""
    if not value:
        return None
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        data = AESGCM(_key(secret_key, purpose)).decrypt(raw[:12], raw[12:], name.encode())
        payload = json.loads(data)
    except (ValueError, InvalidTag):
        return None
    if not isinstance(payload, dict) or float(payload.get("exp", 0)) <= time.time():
        return None
    return payload
