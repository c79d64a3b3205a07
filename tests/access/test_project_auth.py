"""Project credentials: the signature test vectors, every form, and every refusal."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import httpx
from sqlalchemy import update

from api.auth.signature import sign, signature_header, signing_message
from db.models import Project
from tests.factories import ProjectCreds, World

# The same vectors are printed in docs/access.md.
VECTOR_SECRET = "sk_test_0123456789abcdef"
VECTOR_BODY = {
    "visibility": "public",
    "attribute_key": "level",
    "attribute_value": {"rank": "gold", "score": 42},
    "idempotency_key": "attr-0001",
}


def test_signature_vectors() -> None:
    message = signing_message("POST", "/v1/users/u_alice/attributes", "1700000000", VECTOR_BODY)
    assert message == (
        "POST\n/v1/users/u_alice/attributes\n1700000000\n"
        '{"attribute_key":"level","attribute_value":{"rank":"gold","score":42},'
        '"idempotency_key":"attr-0001","visibility":"public"}'
    )
    assert sign(VECTOR_SECRET, message) == (
        "b985defaf1908c8da717ec9813934f416b9443969fd89f4c3ce14bf5c326e32d"
    )
    get = signing_message("GET", "/v1/funds/locked/u_alice?page=2", "1700000000", None)
    assert get == "GET\n/v1/funds/locked/u_alice?page=2\n1700000000\n"
    assert sign(VECTOR_SECRET, get) == (
        "77fc4127cc2b60f6f0cba0ba788257eebf0bfb887c30d6475b36a93d4d7b152b"
    )
    raw = b'{"attribute_key": "level", "attribute_value": 1, "idempotency_key": "attr-0002"}'
    assert sign(VECTOR_SECRET, raw) == (
        "a36feda46a9d3aeb84680cbe4fc920010e3bda43591208027d7f73d040734658"
    )


def signed(
    creds: ProjectCreds, method: str, path: str, body: Any = None, *, ts: int | None = None
) -> dict[str, str]:
    stamp = str(ts if ts is not None else int(time.time()))
    return {
        "X-Project-ID": str(creds.project_id),
        "X-Timestamp": stamp,
        "X-Signature": signature_header(creds.secret, method, path, stamp, body),
    }


def attribute(key: str = "level") -> dict[str, Any]:
    return {
        "attribute_key": key,
        "attribute_value": {"n": 1},
        "idempotency_key": secrets.token_hex(8),
    }


async def setup(world: World, **project: Any) -> tuple[ProjectCreds, str]:
    creds = await world.project(**project)
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    return creds, user.uid


def slug(r: httpx.Response) -> str:
    return str(r.json()["type"].rsplit("/", 1)[-1])


async def test_hmac_happy_path_and_replay(client: httpx.AsyncClient, world: World) -> None:
    creds, uid = await setup(world)
    path = f"/v1/users/{uid}/attributes"
    body = attribute()
    headers = signed(creds, "POST", path, body)
    r = await client.post(path, json=body, headers=headers)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["attribute_value"] == {"n": 1}
    again = await client.post(path, json=body, headers=headers)
    assert again.status_code == 401 and slug(again) == "invalid-signature"
    assert "replayed" in again.json()["detail"]


async def test_hmac_refusals(client: httpx.AsyncClient, world: World) -> None:
    creds, uid = await setup(world)
    other, _ = await setup(world)
    path = f"/v1/users/{uid}/attributes"
    body = attribute()

    stale = signed(creds, "POST", path, body, ts=int(time.time()) - 301)
    r = await client.post(path, json=body, headers=stale)
    assert r.status_code == 401 and slug(r) == "stale-timestamp"

    tampered = signed(creds, "POST", path, body)
    r = await client.post(path, json={**body, "attribute_value": {"n": 2}}, headers=tampered)
    assert r.status_code == 401 and slug(r) == "invalid-signature"

    # Signed with another project's secret.
    wrong = signed(other, "POST", path, body)
    wrong["X-Project-ID"] = str(creds.project_id)
    r = await client.post(path, json=body, headers=wrong)
    assert r.status_code == 401 and slug(r) == "invalid-signature"

    unknown = signed(creds, "POST", path, body)
    unknown["X-Project-ID"] = "999999999"
    r = await client.post(path, json=body, headers=unknown)
    assert r.status_code == 401 and slug(r) == "unknown-project"

    r = await client.post(path, json=body, headers={"X-Project-ID": str(creds.project_id)})
    assert r.status_code == 401 and slug(r) == "unauthorized"


async def test_api_key_form(client: httpx.AsyncClient, world: World) -> None:
    creds, uid = await setup(world)
    path = f"/v1/users/{uid}/attributes"
    good = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    assert (await client.post(path, json=attribute(), headers=good)).status_code == 200
    bad = {**good, "X-API-Key": "sk_" + "0" * 64}
    r = await client.post(path, json=attribute(), headers=bad)
    assert r.status_code == 401 and slug(r) == "invalid-api-key"


async def test_body_signature_form(client: httpx.AsyncClient, world: World) -> None:
    creds, uid = await setup(world)
    path = f"/v1/users/{uid}/attributes"
    raw = json.dumps(attribute()).encode()
    headers = {
        "X-Project-ID": str(creds.project_id),
        "X-Project-Signature": sign(creds.secret, raw),
        "X-Timestamp": str(int(time.time())),
        "Content-Type": "application/json",
    }
    assert (await client.post(path, content=raw, headers=headers)).status_code == 200
    headers["X-Project-Signature"] = sign(creds.secret, raw + b" ")
    r = await client.post(path, content=raw, headers=headers)
    assert r.status_code == 401 and slug(r) == "invalid-signature"


async def test_ip_allowlist(client: httpx.AsyncClient, world: World) -> None:
    for allowlist, expected in ((["10.0.0.0/8"], 403), (["10.0.0.0/8", "127.0.0.1/32"], 200)):
        creds, uid = await setup(world, ip_allowlist=allowlist)
        path = f"/v1/users/{uid}/attributes"
        headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
        r = await client.post(path, json=attribute(), headers=headers)
        assert r.status_code == expected, r.text
        if expected == 403:
            assert slug(r) == "ip-not-allowed"


async def test_suspended_project(client: httpx.AsyncClient, world: World) -> None:
    creds, uid = await setup(world)
    headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    for change in ({"suspended": True}, {"suspended": False, "status": "discontinued"}):
        async with world.sessions() as s:
            await s.execute(
                update(Project).where(Project.project_id == creds.project_id).values(**change)
            )
            await s.commit()
        r = await client.post(f"/v1/users/{uid}/attributes", json=attribute(), headers=headers)
        assert r.status_code == 403 and slug(r) == "project-suspended"


async def test_user_without_consent(client: httpx.AsyncClient, world: World) -> None:
    creds = await world.project()
    stranger = await world.user()
    headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    r = await client.post(f"/v1/users/{stranger.uid}/attributes", json=attribute(), headers=headers)
    assert r.status_code == 403 and slug(r) == "user-not-authorized-for-project"


async def test_project_scopes(client: httpx.AsyncClient, world: World) -> None:
    allowed = await world.project()
    limited = await world.project(allowed_scopes=["mining:read"])
    for creds, expected in ((allowed, 200), (limited, 403)):
        path = "/v1/_probe/funds?page=2"
        r = await client.get(path, headers=signed(creds, "GET", path))
        assert r.status_code == expected, r.text
    assert slug(r) == "insufficient-scope" and "funds:manage" in r.json()["detail"]
