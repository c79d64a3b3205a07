"""The project request signatures of the gateway (docs/access.md), as pure functions.

HMAC form (``X-Timestamp`` + ``X-Signature``): the lowercase hex HMAC-SHA256, keyed with the
project's api secret, of ``METHOD\\nTARGET\\nTIMESTAMP\\nBODY`` where TARGET is the request
target as sent (path plus ``?query`` when there is one) and BODY the compact, key-sorted JSON
of the body (UTF-8, non-ASCII not escaped), or the empty string when there is none.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

SIGNATURE_WINDOW = 300  # seconds either way, enforced by the gateway


def canonical_json(body: Any | None) -> str:
    """The canonical body text that is signed (and that the clients send)."""
    if body is None:
        return ""
    return json.dumps(body, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def signing_message(method: str, target: str, timestamp: str | int, body: Any | None) -> str:
    return "\n".join((method.upper(), target, str(timestamp), canonical_json(body)))


def hmac_hex(secret: str, data: str | bytes) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()


def request_signature(
    secret: str, method: str, target: str, timestamp: str | int, body: Any | None
) -> str:
    """The ``X-Signature`` header value: ``sha256=<hex>``."""
    return "sha256=" + hmac_hex(secret, signing_message(method, target, timestamp, body))


def body_signature(secret: str, raw_body: bytes) -> str:
    """The ``X-Project-Signature`` value (hex HMAC of the raw body bytes)."""
    return hmac_hex(secret, raw_body)


def signatures_equal(expected_hex: str, presented: str) -> bool:
    """Constant-time comparison; the ``sha256=`` prefix is optional, hex case-insensitive."""
    value = presented.strip()
    if value[:7].lower() == "sha256=":
        value = value[7:]
    return hmac.compare_digest(expected_hex.lower().encode(), value.lower().encode())
