"""The SDK's webhook verifier: the vectors of docs/webhooks.md, good / tampered / stale."""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

import pytest
from mccgw_client import (
    InvalidWebhookSignature,
    StaleWebhook,
    WebhookVerificationError,
    verify_webhook,
    webhook_signature,
)

from webhooks.delivery import sign as gateway_sign

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
SECRET = "whsec_test_0123456789abcdef"
NOW = 1_700_000_000


def doc_vectors() -> list[tuple[bytes, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Test vectors", 1)[1]
    rows = re.findall(r"^\| `(\{.*\})` \| `(sha256=[0-9a-f]{64})` \|$", section, re.MULTILINE)
    return [(body.encode("utf-8"), signature) for body, signature in rows]


def independent(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def headers(body: bytes, ts: int = NOW, signature: str | None = None) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "X-Service-Signature": signature or independent(SECRET, body),
        "X-Service-Event": "transfer.completed",
        "X-Service-Delivery": "dlv_0001",
        "X-Service-Timestamp": str(ts),
    }


def test_doc_vectors_match_every_signer() -> None:
    vectors = doc_vectors()
    assert len(vectors) == 2
    for body, signature in vectors:
        assert independent(SECRET, body) == signature
        assert gateway_sign(SECRET, body) == signature  # what the gateway sends
        assert webhook_signature(SECRET, body) == signature
        event = verify_webhook(SECRET, headers(body, signature=signature), body, now=NOW + 10)
        assert event.id.startswith("evt_") and event.delivery_id == "dlv_0001"
    assert (
        "enchère"
        in verify_webhook(SECRET, headers(vectors[1][0]), vectors[1][0], now=NOW).data["reason"]
    )


def test_good_delivery_any_header_spelling() -> None:
    body, _ = doc_vectors()[0]
    event = verify_webhook(SECRET, headers(body), body, now=NOW)
    assert (event.type, event.data["amount"]) == ("transfer.completed", "12.5")
    lowered = [(k.lower(), v) for k, v in headers(body).items()]  # e.g. ASGI/aiohttp pairs
    assert verify_webhook(SECRET, lowered, body, now=NOW).id == "evt_0001"
    # Rotation: the old and the new secret are both accepted while both are configured.
    assert verify_webhook(["whsec_old_secret_000000", SECRET], headers(body), body, now=NOW)
    # A rolled endpoint's delivery carries both signatures, spaced (new first): a receiver
    # holding either secret accepts it, one holding neither does not.
    both = independent("whsec_new_secret_000000", body) + " " + independent(SECRET, body)
    assert verify_webhook(SECRET, headers(body, signature=both), body, now=NOW)
    assert verify_webhook("whsec_new_secret_000000", headers(body, signature=both), body, now=NOW)
    with pytest.raises(InvalidWebhookSignature):
        verify_webhook("whsec_someone_else_000", headers(body, signature=both), body, now=NOW)


@pytest.mark.parametrize("secret", ["", [], ["", SECRET], [SECRET, ""]])
def test_an_empty_secret_is_refused(secret: str | list[str]) -> None:
    """Review 2026-11-28, L4: a receiver configured without its secret (an unset variable)
    accepted any delivery signed with "", which anyone can make."""
    body, _ = doc_vectors()[0]
    forged = headers(body, signature=independent("", body))
    with pytest.raises(ValueError, match="empty secret"):
        verify_webhook(secret, forged, body, now=NOW)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda b: b.replace(b"12.5", b"99.5"),  # amount changed
        lambda b: b + b" ",  # one byte more: the raw bytes are signed, not the JSON meaning
        lambda b: b.replace(b'"id":"evt_0001",', b'"id":"evt_0001", '),
    ],
)
def test_tampered_body_is_refused(tamper: object) -> None:
    body, signature = doc_vectors()[0]
    forged = tamper(body)  # type: ignore[operator]
    with pytest.raises(InvalidWebhookSignature):
        verify_webhook(SECRET, headers(forged, signature=signature), forged, now=NOW)


def test_wrong_secret_missing_or_malformed_signature() -> None:
    body, signature = doc_vectors()[0]
    with pytest.raises(InvalidWebhookSignature):
        verify_webhook("whsec_someone_else_000", headers(body), body, now=NOW)
    no_sig = {k: v for k, v in headers(body).items() if k != "X-Service-Signature"}
    with pytest.raises(InvalidWebhookSignature):
        verify_webhook(SECRET, no_sig, body, now=NOW)
    with pytest.raises(InvalidWebhookSignature):  # bare hex without the scheme
        verify_webhook(SECRET, headers(body, signature=signature[7:]), body, now=NOW)


def test_stale_or_missing_timestamp() -> None:
    body, _ = doc_vectors()[0]
    assert verify_webhook(SECRET, headers(body), body, now=NOW + 300)  # at the edge
    with pytest.raises(StaleWebhook):
        verify_webhook(SECRET, headers(body), body, now=NOW + 301)
    with pytest.raises(StaleWebhook):
        verify_webhook(SECRET, headers(body), body, now=NOW - 301)  # from the future
    no_ts = {k: v for k, v in headers(body).items() if k != "X-Service-Timestamp"}
    with pytest.raises(StaleWebhook):
        verify_webhook(SECRET, no_ts, body, now=NOW)
    # A receiver that checks time itself may switch the check off, or widen it.
    assert verify_webhook(SECRET, no_ts, body, tolerance=None)
    assert verify_webhook(SECRET, headers(body), body, now=NOW + 3600, tolerance=7200)


def test_signed_but_not_an_event() -> None:
    body = b"[1,2]"
    with pytest.raises(WebhookVerificationError):
        verify_webhook(SECRET, headers(body), body, now=NOW)
