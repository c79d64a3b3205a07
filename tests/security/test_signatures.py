"""Items 4 and 17: signed requests cannot be replayed; signed reads can be repeated."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import httpx

from api.auth.signature import sign, signature_header
from tests.factories import ProjectCreds, World
from tests.security.conftest import slug


async def _setup(world: World) -> tuple[ProjectCreds, str]:
    creds = await world.project()
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    return creds, user.uid


def _signed(creds: ProjectCreds, method: str, path: str, body: Any = None) -> dict[str, str]:
    stamp = str(int(time.time()))
    return {
        "X-Project-ID": str(creds.project_id),
        "X-Timestamp": stamp,
        "X-Signature": signature_header(creds.secret, method, path, stamp, body),
    }


async def test_item4_signature_spelling_does_not_dodge_the_replay_cache(
    client: httpx.AsyncClient, world: World
) -> None:
    creds, uid = await _setup(world)
    path = f"/v1/users/{uid}/attributes"
    body = {"attribute_key": "k", "attribute_value": 1, "idempotency_key": secrets.token_hex(6)}
    headers = _signed(creds, "POST", path, body)
    assert (await client.post(path, json=body, headers=headers)).status_code == 200
    for spelling in (
        headers["X-Signature"].removeprefix("sha256="),
        headers["X-Signature"].upper().replace("SHA256=", "sha256="),
        "SHA256=" + headers["X-Signature"].removeprefix("sha256="),
    ):
        r = await client.post(path, json=body, headers={**headers, "X-Signature": spelling})
        assert r.status_code == 401 and slug(r) == "invalid-signature", spelling


async def test_item4_idempotency_header_outside_the_signature_is_refused(
    client: httpx.AsyncClient, world: World
) -> None:
    creds, uid = await _setup(world)
    path = f"/v1/users/{uid}/attributes"
    body = {"attribute_key": "k", "attribute_value": 1}
    headers = {**_signed(creds, "POST", path, body), "Idempotency-Key": "fresh-1"}
    r = await client.post(path, json=body, headers=headers)
    assert r.status_code == 401 and slug(r) == "invalid-signature"
    assert "Idempotency-Key" in r.json()["detail"]
    # Covered (the same key inside the signed body): accepted.
    body = {**body, "idempotency_key": "fresh-2"}
    headers = {**_signed(creds, "POST", path, body), "Idempotency-Key": "fresh-2"}
    assert (await client.post(path, json=body, headers=headers)).status_code == 200


async def test_item4_body_signature_cannot_be_replayed(
    client: httpx.AsyncClient, world: World
) -> None:
    creds, uid = await _setup(world)
    path = f"/v1/users/{uid}/attributes"

    def headers(raw: bytes, **extra: str) -> dict[str, str]:
        return {
            "X-Project-ID": str(creds.project_id),
            "X-Project-Signature": sign(creds.secret, raw),
            "X-Timestamp": str(int(time.time())),
            "Content-Type": "application/json",
            **extra,
        }

    # A captured body without its own key, re-sent with fresh header keys: refused.
    raw = json.dumps({"attribute_key": "k", "attribute_value": 1}).encode()
    for key in ("a", "b"):
        r = await client.post(path, content=raw, headers=headers(raw, **{"Idempotency-Key": key}))
        assert r.status_code == 401 and slug(r) == "invalid-signature", r.text
    # With its key in the body: once, never again, and never without X-Timestamp.
    text = json.dumps({"attribute_key": "k", "attribute_value": 2, "idempotency_key": "x1"})
    body = text.encode()
    no_time = headers(body)
    del no_time["X-Timestamp"]
    r = await client.post(path, content=body, headers=no_time)
    assert r.status_code == 401 and slug(r) == "stale-timestamp"
    assert (await client.post(path, content=body, headers=headers(body))).status_code == 200
    again = await client.post(path, content=body, headers=headers(body))
    assert again.status_code == 401 and slug(again) == "invalid-signature"


async def test_item17_signed_reads_may_repeat(client: httpx.AsyncClient, world: World) -> None:
    creds = await world.project()
    path = "/v1/_probe/funds"
    headers = _signed(creds, "GET", path)
    for _ in range(3):
        r = await client.get(path, headers=headers)
        assert r.status_code == 200, r.text
