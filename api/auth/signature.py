"""The project request signature (decisions.md), as pure functions so docs and tests can share
test vectors.

Message: ``METHOD\\nPATH\\nTIMESTAMP\\nBODY``; PATH is the request target as sent (path plus
``?query`` when there is one); BODY is the compact, key-sorted JSON of the parsed body (UTF-8,
no ASCII escaping), or the empty string when there is no body.
Header: ``X-Signature: sha256=<lowercase hex HMAC-SHA256(api_secret, message)>``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

SIGNATURE_WINDOW = 300  # seconds either way


def canonical_body(parsed: Any | None) -> str:
    if parsed is None:
        return ""
    return json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def signing_message(method: str, path: str, timestamp: str, parsed_body: Any | None) -> str:
    return "\n".join((method.upper(), path, timestamp, canonical_body(parsed_body)))


def sign(secret: str, message: str | bytes) -> str:
    data = message.encode() if isinstance(message, str) else message
    return hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()


def signature_header(secret: str, method: str, path: str, timestamp: str, body: Any) -> str:
    return "sha256=" + sign(secret, signing_message(method, path, timestamp, body))


def matches(expected_hex: str, presented: str) -> bool:
    """Constant-time comparison; ``sha256=`` prefix optional, hex case-insensitive."""
    value = presented.strip()
    if value.lower().startswith("sha256="):
        value = value[7:]
    return hmac.compare_digest(expected_hex.encode(), value.lower().encode())
