"""Verify a webhook delivery: a pure function of the headers and the raw body bytes, usable
from any web framework (read the raw body *before* any JSON parsing).

    event = verify_webhook(secret, request.headers, await request.body())

Checks, in order: ``X-Service-Timestamp`` within ``tolerance`` seconds of now (when
``tolerance`` is not None), then ``X-Service-Signature`` = ``sha256=<hex HMAC-SHA256(secret,
raw body)>`` compared in constant time, then the body is parsed. Several secrets may be given
(during a rotation of yours; during a roll of the endpoint's secret the gateway sends one
signature per secret, spaced, and any of them may match). An empty secret (or none) is refused
with ``ValueError``: anyone can sign with "". Note: the gateway does not sign the timestamp
today (docs/webhooks.md), so the tolerance only turns away stale copies; de-duplicate by the
event ``id`` to be safe against replays, as the gateway also resends a delivery after a crash.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import MccgwError
from .signing import hmac_hex, signatures_equal

SIGNATURE_HEADER = "x-service-signature"
TIMESTAMP_HEADER = "x-service-timestamp"
EVENT_HEADER = "x-service-event"
DELIVERY_HEADER = "x-service-delivery"
DEFAULT_TOLERANCE = 300


class WebhookVerificationError(MccgwError):
    """The delivery must be refused (answer 400 or 401, and do not act on it)."""


class InvalidWebhookSignature(WebhookVerificationError):
    pass


class StaleWebhook(WebhookVerificationError):
    pass


@dataclass(frozen=True)
class WebhookEvent:
    id: str
    type: str
    created_at: str
    data: dict[str, Any]
    delivery_id: str | None
    body: dict[str, Any]


def webhook_signature(secret: str, raw_body: bytes) -> str:
    """The ``X-Service-Signature`` value for ``raw_body`` (for tests and receivers' tools)."""
    return "sha256=" + hmac_hex(secret, raw_body)


def _header(headers: Mapping[str, str] | Iterable[tuple[str, str]], name: str) -> str | None:
    items = headers.items() if isinstance(headers, Mapping) else headers
    for key, value in items:
        if key.lower() == name:
            return value
    return None


def verify_webhook(
    secret: str | Iterable[str],
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    raw_body: bytes,
    *,
    tolerance: float | None = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> WebhookEvent:
    """The verified event, or :class:`WebhookVerificationError`. ``ValueError`` for an empty
    secret: a receiver configured without its secret would accept what anyone signs."""
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or not all(isinstance(s, str) and s for s in secrets):
        raise ValueError("verify_webhook needs the endpoint's secret: an empty secret is refused")
    if tolerance is not None:
        raw_ts = (_header(headers, TIMESTAMP_HEADER) or "").strip()
        # ASCII digits only: str.isdigit also takes '²', which int() refuses.
        if not (raw_ts.isascii() and raw_ts.isdecimal()):
            raise StaleWebhook("X-Service-Timestamp is missing or not Unix seconds")
        skew = abs((time.time() if now is None else now) - int(raw_ts))
        if skew > tolerance:
            raise StaleWebhook(f"X-Service-Timestamp is {int(skew)} s off (limit {tolerance} s)")
    presented = _header(headers, SIGNATURE_HEADER)
    if not presented or not presented.strip().lower().startswith("sha256="):
        raise InvalidWebhookSignature("X-Service-Signature is missing or not sha256=<hex>")
    # During a secret roll's overlap the header carries one signature per secret, spaced.
    offered = presented.split()
    if not any(signatures_equal(hmac_hex(s, raw_body), one) for s in secrets for one in offered):
        raise InvalidWebhookSignature("X-Service-Signature does not match the body")
    try:
        body = json.loads(raw_body)
    except ValueError as exc:
        raise WebhookVerificationError("the signed body is not JSON") from exc
    if not isinstance(body, dict):
        raise WebhookVerificationError("the signed body is not a JSON object")
    data = body.get("data")
    return WebhookEvent(
        id=str(body.get("id", "")),
        type=str(body.get("type", _header(headers, EVENT_HEADER) or "")),
        created_at=str(body.get("created_at", "")),
        data=data if isinstance(data, dict) else {},
        delivery_id=_header(headers, DELIVERY_HEADER),
        body=body,
    )
