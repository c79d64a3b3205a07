"""Items 6 and 18, and the explicit hostile cases: each a clear RFC 7807 problem, nothing
written, no 500."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import func, select

from api.metrics import HTTP_REQUESTS
from db.models.access import AuditLog, UserProjectAttribute
from db.models.ledger import Hold
from tests.factories import ProjectCreds, World
from tests.security.conftest import slug


def _problem(r: httpx.Response, status: int | tuple[int, ...]) -> str:
    statuses = status if isinstance(status, tuple) else (status,)
    assert r.status_code in statuses, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/problem+json"), r.headers
    body = r.json()
    assert body["status"] == r.status_code and body["type"] and body["detail"]
    return slug(r)


async def _nothing_written(world: World, creds: ProjectCreds) -> None:
    async with world.sessions() as s:
        for model, column in (
            (AuditLog, AuditLog.project_id),
            (UserProjectAttribute, UserProjectAttribute.project_id),
            (Hold, Hold.project_id),
        ):
            count = await s.scalar(select(func.count()).where(column == creds.project_id))
            assert count == 0, model.__name__


def _headers(creds: ProjectCreds, **extra: str) -> dict[str, str]:
    return {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret, **extra}


def _lock(uid: str, amount: Any) -> dict[str, Any]:
    return {
        "user_uid": uid,
        "currency": "MCC",
        "amount": amount,
        "reason": "bid",
        "expires_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
        "idempotency_key": "k-1",
    }


async def test_item18_amounts_and_types(client: httpx.AsyncClient, world: World) -> None:
    creds = await world.project()
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    headers = _headers(creds)
    for amount in ("1e400", "NaN", "-0", "٣", "0x10", "1_000", "1" * 4301, "10\n", " 1", "+1"):
        r = await client.post("/v1/funds/lock", json=_lock(user.uid, amount), headers=headers)
        assert _problem(r, 422) == "invalid-amount", amount
    wrong_types: list[Any] = [12, 12.5, None, True, ["1"], {"v": "1"}]
    for wrong in wrong_types:
        r = await client.post("/v1/funds/lock", json=_lock(user.uid, wrong), headers=headers)
        assert _problem(r, 422) in ("validation-error", "invalid-amount"), wrong
    # Raw JSON spellings json.dumps would never write.
    for raw in (b'"amount": NaN', b'"amount": Infinity', b'"amount": 1e400'):
        body = json.dumps(_lock(user.uid, "1")).encode().replace(b'"amount": "1"', raw)
        r = await client.post(
            "/v1/funds/lock", content=body, headers={**headers, "Content-Type": "application/json"}
        )
        assert _problem(r, (400, 422)) in ("malformed-request", "validation-error"), raw
    await _nothing_written(world, creds)


async def test_item6_and_18_sizes_shapes_and_media(client: httpx.AsyncClient, world: World) -> None:
    creds = await world.project()
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    path = f"/v1/users/{user.uid}/attributes"
    json_headers = _headers(creds, **{"Content-Type": "application/json"})

    def attr(value: Any) -> bytes:
        return json.dumps(
            {"attribute_key": "k", "attribute_value": value, "idempotency_key": "i1"}
        ).encode()

    big = b'{"attribute_key": "k", "attribute_value": "' + b"x" * (20 * 1024 * 1024) + b'"}'
    r = await client.post(path, content=big, headers=json_headers)
    assert _problem(r, 413) == "payload-too-large"
    deep = b'{"attribute_key": "k", "attribute_value": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    assert _problem(await client.post(path, content=deep, headers=json_headers), 422)
    nested: Any = 1
    for _ in range(600):
        nested = {"n": nested}
    r = await client.post(path, content=attr(nested), headers=json_headers)
    assert _problem(r, 422) == "validation-error"
    wide = {f"k{i}": i for i in range(5000)}
    assert _problem(await client.post(path, content=attr(wide), headers=json_headers), 422)
    long = list(range(5000))
    assert _problem(await client.post(path, content=attr(long), headers=json_headers), 422)
    dup = b'{"attribute_key": "k", "attribute_key": "j", "attribute_value": 1}'
    r = await client.post(path, content=dup, headers=json_headers)
    assert _problem(r, 400) == "malformed-request"
    for value in ("a\x00b", {"k\x00": 1}, "\udfb5", {"\ud800": 1}):
        r = await client.post(path, content=attr(value), headers=json_headers)
        assert _problem(r, 422) == "validation-error", value
    r = await client.post(path, content=b"{not json", headers=json_headers)
    assert _problem(r, 400) == "malformed-request"
    for content_type in ("text/plain", "application/xml", "image/png"):
        r = await client.post(
            path, content=attr(1), headers={**json_headers, "Content-Type": content_type}
        )
        assert _problem(r, 415) == "unsupported-media-type", content_type
    utf16 = "application/json; charset=utf-16"
    r = await client.post(
        path,
        content=attr(1).decode().encode("utf-16"),
        headers={**json_headers, "Content-Type": utf16},
    )
    assert _problem(r, 415) == "unsupported-media-type"
    r = await client.post(path, content=b"\xff\xfe{}", headers=json_headers)
    assert _problem(r, 400) == "malformed-request"
    await _nothing_written(world, creds)


async def test_item18_nul_in_targets_and_forms_without_credentials(
    client: httpx.AsyncClient, world: World
) -> None:
    assert _problem(await client.get("/v1/users/a%00b"), 422) == "validation-error"
    assert _problem(await client.get("/v1/users/u/projects/1/attributes?x=%00"), 422)
    r = await client.post(
        "/auth/oauth/authorize?response_type=code&client_id=x",
        content=b"username=a%00b&password=p&decision=approve",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert _problem(r, 422) == "validation-error"
    creds = await world.project()
    for path in ("/v1/webhooks", "/v1/funds/locked/u_x"):
        r = await client.get(f"{path}?page=999999999999999999", headers=_headers(creds))
        assert _problem(r, 422) == "validation-error", path


async def test_item6_metric_labels_are_a_fixed_set(client: httpx.AsyncClient) -> None:
    for method in ("FOO", "X" * 200, "get"):
        await client.request(method, "/v1/_probe/bare")
    methods = {
        sample.labels["method"] for metric in HTTP_REQUESTS.collect() for sample in metric.samples
    }
    assert methods <= {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"}


async def test_item6_body_caps_per_route(client: httpx.AsyncClient, world: World) -> None:
    creds = await world.project()
    headers = _headers(creds)
    image = b"\x89PNG" + b"\x00" * (3 * 1024 * 1024)
    r = await client.post(
        "/v1/users/me/avatar", files={"file": ("a.png", image, "image/png")}, headers=headers
    )
    assert _problem(r, 413) == "payload-too-large"
    small = await client.post(
        "/v1/users/me/avatar",
        files={"file": ("a.png", image[: 1024 * 1024], "image/png")},
        headers=headers,
    )
    assert small.status_code != 413  # under the avatar's 2 MB: up to the route
    json_headers = {**headers, "Content-Type": "application/json"}
    body = json.dumps({"uids": ["u"], "pad": "x" * (400 * 1024)}).encode()
    r = await client.post("/v1/users/batch/attributes", content=body, headers=json_headers)
    assert r.status_code != 413  # batch routes take up to 1 MB
    r = await client.post("/v1/funds/unlock", content=body, headers=json_headers)
    assert _problem(r, 413) == "payload-too-large"  # other JSON routes 256 KB
