"""Both signing forms against the test vectors of docs/access.md (parsed from the page, so the
page and the SDK cannot drift apart), and the SDK's signer against the gateway's verifier."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from mccgw_client import ApiKeyAuth, Client, HmacAuth
from mccgw_client.signing import body_signature, canonical_json, request_signature, signing_message

from api.auth.signature import signature_header as gateway_signature

DOC = Path(__file__).resolve().parents[2] / "docs" / "access.md"
SECRET = "sk_test_0123456789abcdef"
ROW = re.compile(
    r"^\| `(?P<method>[A-Z]+) (?P<target>[^`]+)`, timestamp `(?P<ts>\d+)`, "
    r"(?:body `(?P<body>.*?)`|no body) \| (?P<message>.*?) \| `(?P<sig>sha256=[0-9a-f]{64})` \|$",
    re.MULTILINE,
)


def doc_vectors() -> list[dict[str, Any]]:
    section = DOC.read_text(encoding="utf-8").split("### Test vectors", 1)[1]
    vectors = []
    for m in ROW.finditer(section):
        parts = [
            tok[0] if tok[0] or not tok[1] else ""
            for tok in re.findall(r"`([^`]*)`|(\(empty line\))", m["message"])
        ]
        vectors.append(
            {
                "method": m["method"],
                "target": m["target"],
                "ts": m["ts"],
                "body": json.loads(m["body"]) if m["body"] else None,
                "message": "\n".join(parts),
                "signature": m["sig"],
            }
        )
    return vectors


def test_hmac_vectors() -> None:
    vectors = doc_vectors()
    assert [v["method"] for v in vectors] == ["POST", "GET"]
    for v in vectors:
        message = signing_message(v["method"], v["target"], v["ts"], v["body"])
        assert message == v["message"]
        assert (
            request_signature(SECRET, v["method"], v["target"], v["ts"], v["body"])
            == (v["signature"])
        )


def test_body_signature_vector() -> None:
    text = DOC.read_text(encoding="utf-8")
    m = re.search(r"`X-Project-Signature` of the raw body\s+`([^`]+)` is\s+`([0-9a-f]{64})`", text)
    assert m is not None
    assert body_signature(SECRET, m[1].encode()) == m[2]


class Capture(httpx.BaseTransport):
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json={"data": []})


def test_client_sends_the_vectors() -> None:
    """What the client puts on the wire, with the vectors' clock: the same signatures."""
    post, get = doc_vectors()
    capture = Capture()
    auth = HmacAuth("1000", SECRET, clock=lambda: 1_700_000_000)
    with Client("http://gw.test", auth, transport=capture) as gw:
        gw.post(post["target"], json=post["body"])  # carries idempotency_key attr-0001
        gw.get("/v1/funds/locked/u_alice", params={"page": 2})
    sent_post, sent_get = capture.requests
    assert sent_post.headers["x-signature"] == post["signature"]
    assert sent_post.headers["x-timestamp"] == "1700000000"
    assert sent_post.headers["x-project-id"] == "1000"
    assert sent_post.content.decode() == post["message"].split("\n", 3)[3]  # canonical bytes
    assert sent_get.url.raw_path.decode() == get["target"]
    assert sent_get.headers["x-signature"] == get["signature"] and not sent_get.content
    assert "x-api-key" not in sent_post.headers  # the secret never travels in this form


def test_api_key_form_headers() -> None:
    capture = Capture()
    with Client("http://gw.test", ApiKeyAuth(1000, SECRET), transport=capture) as gw:
        gw.get("/v1/webhooks")
    sent = capture.requests[0]
    assert sent.headers["x-project-id"] == "1000" and sent.headers["x-api-key"] == SECRET
    assert "x-signature" not in sent.headers


@pytest.mark.parametrize(
    "body",
    [
        None,
        {},
        {"b": 1, "a": [3, 2, {"z": None, "y": True}], "name": "Ærø ✓ 日本"},
        {"amount": "12.500000001", "nested": {"k": 1.5, "e": -0.0}},
        [1, "two"],
    ],
)
@pytest.mark.parametrize("target", ["/v1/transfer/request", "/v1/x?b=2&a=1&s=%20x"])
def test_same_signature_as_the_gateway(body: Any, target: str) -> None:
    for method in ("POST", "get"):
        assert request_signature(SECRET, method, target, 1_700_000_123, body) == (
            gateway_signature(SECRET, method, target, "1700000123", body)
        )


def test_canonical_json_is_compact_sorted_utf8() -> None:
    assert canonical_json({"b": "é", "a": 1}) == '{"a":1,"b":"é"}'
    assert canonical_json(None) == ""


def test_timestamps_strictly_increase_for_one_message() -> None:
    """Two attempts of one write inside one second must not share a signature (the gateway
    accepts a write's signature once)."""
    auth = HmacAuth(1, SECRET, clock=lambda: 1_700_000_000.5)
    first = auth.headers("POST", "/v1/funds/lock", {"idempotency_key": "k"})
    second = auth.headers("POST", "/v1/funds/lock", {"idempotency_key": "k"})
    other = auth.headers("POST", "/v1/funds/lock", {"idempotency_key": "k2"})
    assert (first["X-Timestamp"], second["X-Timestamp"]) == ("1700000000", "1700000001")
    assert first["X-Signature"] != second["X-Signature"]
    assert other["X-Timestamp"] == "1700000000"  # another message keeps the real clock
