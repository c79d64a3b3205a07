"""Issue 31, M1 and L1: no body is buffered or parsed before authentication, on any method;
bodies of no or a foreign media type are never parsed as JSON; mixed naive and aware times are
a 422. Each answer is an RFC 7807 problem under 500."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import httpx

from tests.factories import World
from tests.security.conftest import slug

NESTED = b"[" * 100_000


def _signed(project_id: int) -> dict[str, str]:
    """Project headers with any signature: enough to reach the HMAC check."""
    return {
        "X-Project-ID": str(project_id),
        "X-Signature": "sha256=" + "0" * 64,
        "X-Timestamp": str(int(time.time())),
    }


def _problem(r: httpx.Response, *statuses: int) -> str:
    assert r.status_code in statuses, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/problem+json"), r.headers
    return slug(r)


async def test_a_get_body_is_refused_unread_before_authentication(
    client: httpx.AsyncClient, world: World
) -> None:
    creds = await world.project()
    headers = _signed(creds.project_id)
    # Deeply nested: was parsed by the HMAC check before the signature, a RecursionError (500).
    r = await client.request("GET", "/v1/transfer/x", headers=headers, content=NESTED)
    assert _problem(r, 400) == "malformed-request"
    # Large: was read whole and parsed, then 401.
    big = b"[" + b"0," * 500_000 + b"0]"
    r = await client.request("GET", "/v1/transfer/x", headers=headers, content=big)
    assert _problem(r, 400) == "malformed-request"
    for method in ("HEAD", "OPTIONS"):
        r = await client.request(method, "/v1/mcc/price", content=b"{}")
        assert r.status_code == 400, (method, r.status_code)


async def test_a_streamed_get_body_is_refused_at_its_first_bytes(
    client: httpx.AsyncClient, world: World
) -> None:
    creds = await world.project()
    sent = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(10_000):  # 5 GB if it were all read
            sent += 1
            yield b"0," * 262_144

    r = await client.request(
        "GET", "/v1/transfer/x", headers=_signed(creds.project_id), content=endless()
    )
    assert _problem(r, 400) == "malformed-request"
    assert sent < 5, sent


async def test_an_empty_chunked_get_still_works(client: httpx.AsyncClient) -> None:
    async def nothing() -> AsyncIterator[bytes]:
        if False:
            yield b""

    r = await client.request("GET", "/v1/mcc/price", content=nothing())
    assert r.status_code == 200, r.text


async def test_bodies_without_a_json_media_type_are_never_parsed_as_json(
    client: httpx.AsyncClient, world: World
) -> None:
    creds = await world.project()
    headers = _signed(creds.project_id)
    for content_type in (None, "text/plain", "application/octet-stream"):
        extra = {"Content-Type": content_type} if content_type else {}
        r = await client.post("/v1/transfer/request", headers={**headers, **extra}, content=NESTED)
        assert _problem(r, 415) == "unsupported-media-type", content_type
    # JSON, nested: refused by the guard before any parse.
    r = await client.post(
        "/v1/transfer/request",
        headers={**headers, "Content-Type": "application/json"},
        content=NESTED,
    )
    assert _problem(r, 422) == "validation-error"


async def test_two_content_types_are_refused(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/v1/lending/calculate-interest",
        headers=[("Content-Type", "application/json"), ("Content-Type", "text/plain")],
        content=b'{"principal": "1", "duration_seconds": 60}',
    )
    assert _problem(r, 400) == "malformed-request"


async def test_lending_calculator_mixed_naive_and_aware_times_is_a_422(
    client: httpx.AsyncClient,
) -> None:
    path = "/v1/lending/calculate-interest"
    for body in (
        {"principal": "1", "from_time": "2024-01-01T00:00:00", "to_time": "2024-01-02T00:00:00Z"},
        {"principal": "1", "from_time": "2024-01-01T00:00:00Z", "to_time": "2024-01-02T00:00:00"},
        {
            "principal": "1",
            "from_time": "0001-01-01T00:00:00+14:00",
            "to_time": "9999-12-31T23:59:59-14:00",
        },
    ):
        r = await client.post(path, json=body)
        assert _problem(r, 422) == "validation-error", body
    r = await client.post(
        path,
        json={
            "principal": "1",
            "from_time": "2024-01-01T00:00:00+02:00",
            "to_time": "2024-01-02T00:00:00Z",
        },
    )
    assert r.status_code in (200, 503), r.text  # 503 only while the pool cannot be read
