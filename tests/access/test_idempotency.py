"""Idempotent writes: replay, conflicts, in-flight, and exactly one effect under concurrency;
the audit row that goes with each."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets

import httpx
from redis.asyncio import Redis
from sqlalchemy import func, select

from db.models.access import AuditLog, IdempotencyRecord, UserProjectAttribute
from tests.factories import World


async def project_on_user(world: World) -> tuple[dict[str, str], str, int]:
    creds = await world.project()
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    return headers, user.uid, creds.project_id


async def test_replay_is_byte_for_byte(client: httpx.AsyncClient, world: World) -> None:
    headers, uid, _ = await project_on_user(world)
    body = {"attribute_key": "k", "attribute_value": [1, "two"], "idempotency_key": "same"}
    first = await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers
    again = await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    assert again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    # The header form of the key is the same key.
    header_form = {k: v for k, v in body.items() if k != "idempotency_key"}
    third = await client.post(
        f"/v1/users/{uid}/attributes",
        json=header_form,
        headers={**headers, "Idempotency-Key": "same"},
    )
    assert third.headers.get("idempotent-replayed") == "true" and third.content == first.content


async def test_same_key_other_body_is_409(client: httpx.AsyncClient, world: World) -> None:
    headers, uid, _ = await project_on_user(world)
    body = {"attribute_key": "k", "attribute_value": 1, "idempotency_key": "key-1"}
    assert (
        await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    ).status_code == 200
    r = await client.post(
        f"/v1/users/{uid}/attributes", json={**body, "attribute_value": 2}, headers=headers
    )
    assert r.status_code == 409 and r.json()["type"].endswith("/idempotency-key-reused")


async def test_in_flight_is_409(client: httpx.AsyncClient, world: World, redis: Redis) -> None:
    headers, uid, project_id = await project_on_user(world)
    key = "busy-key"
    lock = f"idem:p:{project_id}:{hashlib.sha256(key.encode()).hexdigest()}"
    await redis.set(lock, "someone-else", ex=30)
    body = {"attribute_key": "k", "attribute_value": 1, "idempotency_key": key}
    r = await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    assert r.status_code == 409 and r.json()["type"].endswith("/idempotency-key-in-use")
    await redis.delete(lock)
    assert (
        await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    ).status_code == 200


async def test_missing_key_is_422(client: httpx.AsyncClient, world: World) -> None:
    """A write that is not naturally idempotent (it creates something each time it runs)
    needs its key."""
    owner = await world.user()
    creds = await world.project(owner_uid=owner.uid)
    headers = {"Authorization": f"Bearer {await world.token(owner.uid, 'openid')}"}
    path = f"/v1/projects/{creds.project_id}/oauth-client/secret/roll"
    r = await client.post(path, json={}, headers=headers)
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "idempotency_key"


async def test_naturally_idempotent_writes_take_no_key(
    client: httpx.AsyncClient, world: World
) -> None:
    """The spec's own bodies (issue 34): an attribute upsert without a key runs, audited;
    the same body twice leaves one row with the same value."""
    headers, uid, project_id = await project_on_user(world)
    body = {"attribute_key": "keyless", "attribute_value": {"level": 3}}
    for _ in range(2):
        r = await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
        assert r.status_code == 200, r.text
        assert "idempotent-replayed" not in r.headers
    async with world.sessions() as s:
        rows = (
            await s.scalars(
                select(UserProjectAttribute).where(
                    UserProjectAttribute.uid == uid, UserProjectAttribute.attribute_key == "keyless"
                )
            )
        ).all()
        audits = (
            await s.scalars(
                select(AuditLog).where(
                    AuditLog.project_id == project_id,
                    AuditLog.operation == "attributes.upsert",
                    AuditLog.user_uid == uid,
                )
            )
        ).all()
    assert len(rows) == 1 and rows[0].attribute_value == {"level": 3}
    assert len(audits) == 2 and all(a.idempotency_key is None for a in audits)
    assert all(a.status == "success" and a.status_code == 200 for a in audits)


async def test_concurrent_identical_writes_execute_once(
    client: httpx.AsyncClient, world: World
) -> None:
    headers, uid, _ = await project_on_user(world)
    key = secrets.token_hex(8)
    body = {"attribute_key": "race", "attribute_value": {"v": 1}, "idempotency_key": key}
    responses = await asyncio.gather(
        *(client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers) for _ in range(12))
    )
    statuses = sorted(r.status_code for r in responses)
    assert set(statuses) <= {200, 409}, statuses
    originals = [
        r for r in responses if r.status_code == 200 and "idempotent-replayed" not in r.headers
    ]
    assert len(originals) == 1
    async with world.sessions() as s:
        rows = await s.scalar(
            select(func.count())
            .select_from(UserProjectAttribute)
            .where(UserProjectAttribute.uid == uid)
        )
        audits = await s.scalar(
            select(func.count())
            .select_from(AuditLog)
            .where(AuditLog.idempotency_key == key, AuditLog.status == "success")
        )
        records = await s.scalar(
            select(func.count()).select_from(IdempotencyRecord).where(IdempotencyRecord.key == key)
        )
    assert (rows, audits, records) == (1, 1, 1)


async def test_user_token_write_is_idempotent_per_user(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    token = await world.token(user.uid, "user:read user:write")
    auth = {"Authorization": f"Bearer {token}"}
    body = {"display_name": "Alice Q", "idempotency_key": "rename-1"}
    first = await client.patch("/v1/users/me/profile", json=body, headers=auth)
    assert first.status_code == 200, first.text
    again = await client.patch("/v1/users/me/profile", json=body, headers=auth)
    assert again.headers["idempotent-replayed"] == "true" and again.content == first.content
    too_long = await client.patch(
        "/v1/users/me/profile",
        json={"display_name": "x" * 51, "idempotency_key": "r2"},
        headers=auth,
    )
    assert too_long.status_code == 422
    async with world.sessions() as s:
        scopes = (
            await s.scalars(
                select(IdempotencyRecord.scope).where(IdempotencyRecord.key == "rename-1")
            )
        ).all()
    assert f"u:{user.uid}" in scopes


async def test_audit_row_without_secrets(client: httpx.AsyncClient, world: World) -> None:
    headers, uid, project_id = await project_on_user(world)
    key = secrets.token_hex(8)
    body = {
        "attribute_key": "creds",
        "attribute_value": {"password": "hunter2", "api_secret": "sk_leak", "ok": True},
        "idempotency_key": key,
    }
    r = await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    assert r.status_code == 200
    async with world.sessions() as s:
        row = (await s.scalars(select(AuditLog).where(AuditLog.idempotency_key == key))).one()
    assert (row.project_id, row.operation, row.user_uid, row.status) == (
        project_id, "attributes.upsert", uid, "success",
    )  # fmt: skip
    assert row.client_ip == "127.0.0.1" and row.request_id == r.headers["x-request-id"]
    assert row.request_body["attribute_value"]["ok"] is True
    dumped = json.dumps([row.request_body, row.response_body])
    for secret in ("hunter2", "sk_leak", headers["X-API-Key"]):
        assert secret not in dumped


async def test_refused_write_is_audited_failed(client: httpx.AsyncClient, world: World) -> None:
    creds = await world.project()
    stranger = await world.user()
    headers = {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}
    key = secrets.token_hex(8)
    body = {"attribute_key": "k", "attribute_value": 1, "idempotency_key": key}
    r = await client.post(f"/v1/users/{stranger.uid}/attributes", json=body, headers=headers)
    assert r.status_code == 403
    async with world.sessions() as s:
        rows = (await s.scalars(select(AuditLog).where(AuditLog.idempotency_key == key))).all()
        stored = await s.scalar(select(IdempotencyRecord).where(IdempotencyRecord.key == key))
    assert [(a.status, a.status_code) for a in rows] == [("failed", 403)]
    assert stored is None  # a refusal is not stored: the same key works once consent exists


async def test_replay_from_postgres_when_redis_forgot(
    client: httpx.AsyncClient, world: World, redis: Redis
) -> None:
    headers, uid, _ = await project_on_user(world)
    body = {"attribute_key": "k", "attribute_value": 1, "idempotency_key": "forgotten"}
    first = await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    keys = [k async for k in redis.scan_iter("idem:done:*")]
    await redis.delete(*keys)
    again = await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    assert again.headers["idempotent-replayed"] == "true" and again.content == first.content
    async with world.sessions() as s:
        audits = await s.scalar(
            select(func.count())
            .select_from(AuditLog)
            .where(AuditLog.idempotency_key == "forgotten", AuditLog.status == "success")
        )
    assert audits == 1  # the repeated run was rolled back


async def test_mark_audit_and_workflow_ids(client: httpx.AsyncClient, world: World) -> None:
    from events.audit import mark_audit

    headers, uid, _ = await project_on_user(world)
    key = secrets.token_hex(8)
    body = {"attribute_key": "k", "attribute_value": 1, "idempotency_key": key}
    assert (
        await client.post(f"/v1/users/{uid}/attributes", json=body, headers=headers)
    ).status_code == 200
    async with world.sessions() as s:
        audit_id = (
            await s.scalars(select(AuditLog.id).where(AuditLog.idempotency_key == key))
        ).one()
    await mark_audit(world.sessions, audit_id, "failed", {"reason": "chain", "token": "t0ps3cret"})
    async with world.sessions() as s:
        row = await s.get(AuditLog, audit_id)
    assert row is not None and row.status == "failed"
    assert row.response_body == {"reason": "chain", "token": "[redacted]"}


def test_workflow_id_is_deterministic() -> None:
    from api.auth.principal import ProjectPrincipal
    from api.idempotency import WriteContext

    principal = ProjectPrincipal(1000, "p", frozenset(), "free", "api-key")
    ids = {
        WriteContext(None, principal, "op", "key-1", "p:1000", {}, None, None).workflow_id("lock")  # type: ignore[arg-type]
        for _ in range(2)
    }
    assert ids == {"lock-p1000-" + hashlib.sha256(b"key-1").hexdigest()[:32]}


async def test_spec_bodies_of_profile_and_price_need_no_key(
    client: httpx.AsyncClient, world: World
) -> None:
    """`PATCH /v1/users/me/profile {"display_name": ...}` and `POST /v1/mcc/price
    {"price_usdc": ...}` exactly as the spec writes them (no idempotency_key)."""
    user = await world.user()
    token = await world.token(user.uid, "user:read user:write")
    r = await client.patch(
        "/v1/users/me/profile",
        json={"display_name": "Keyless"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["display_name"] == "Keyless"
    admin = await world.user("admin")
    token = await world.token(admin.uid, "mcc:admin")
    r = await client.post(
        "/v1/mcc/price", json={"price_usdc": "12.5"}, headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["price_usdc"] == "12.5"
