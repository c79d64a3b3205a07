"""Items 7, 12, 14 and 18 on the money routes: real app, worker, ledger and chain."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from redis.asyncio import Redis
from sqlalchemy import func, select, update

from activities.deps import WorkerDeps
from db.models import Project
from db.models.access import IdempotencyRecord
from db.models.engine import Transfer
from db.models.ledger import Hold
from tests.engine.conftest import UNIT, Api, funded_user
from tests.factories import World


def slug(r: httpx.Response) -> str:
    return str(r.json()["type"].rsplit("/", 1)[-1])


def later(**delta: float) -> str:
    return (datetime.now(UTC) + timedelta(**(delta or {"hours": 1}))).isoformat()


def lock_body(uid: str, amount: str = "10", **extra: Any) -> dict[str, Any]:
    return {
        "user_uid": uid,
        "currency": "MCC",
        "amount": amount,
        "reason": "auction_bid",
        "reference_id": "auction-1",
        "expires_at": later(),
        **extra,
    }


async def holds_of(deps: WorkerDeps, uid: str) -> int:
    async with deps.sessions() as s:
        return int(await s.scalar(select(func.count()).where(Hold.user_uid == uid)) or 0)


async def transfers_of(deps: WorkerDeps, uid: str) -> int:
    async with deps.sessions() as s:
        count = await s.scalar(select(func.count()).where(Transfer.from_uid == uid))
        return int(count or 0)


async def test_item7_maintenance_project_cannot_move_money(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 100 * UNIT)
    other = await funded_user(world, deps, api.project.project_id, 0)
    async with deps.sessions() as s:
        await s.execute(
            update(Project)
            .where(Project.project_id == api.project.project_id)
            .values(status="maintenance")
        )
        await s.commit()
    r = await api.post("/v1/funds/lock", lock_body(uid))
    assert r.status_code == 409 and slug(r) == "invalid-state", r.text
    r = await api.post(
        "/v1/funds/transfer", {"from_uid": uid, "to_uid": other, "currency": "MCC", "amount": "1"}
    )
    assert r.status_code == 409 and slug(r) == "invalid-state", r.text
    # Reads still work in maintenance.
    assert (await api.get(f"/v1/funds/locked/{uid}")).status_code == 200
    assert await holds_of(deps, uid) == 0 and await transfers_of(deps, uid) == 0


async def test_item12_key_reused_after_expiry_never_replays_an_old_answer(
    api: Api, world: World, deps: WorkerDeps, redis: Redis
) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 100 * UNIT)
    key = uuid.uuid4().hex
    first = await api.post("/v1/funds/lock", {**lock_body(uid, "10"), "idempotency_key": key})
    assert first.status_code == 201, first.text
    # 24 h later: the stored answer has expired and Redis has forgotten the key.
    scope = f"p:{api.project.project_id}"
    async with deps.sessions() as s:
        await s.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.scope == scope, IdempotencyRecord.key == key)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        await s.commit()
    await redis.delete(f"idem:done:{scope}:{hashlib.sha256(key.encode()).hexdigest()}")
    for amount in ("20", "10"):
        r = await api.post("/v1/funds/lock", {**lock_body(uid, amount), "idempotency_key": key})
        assert r.status_code == 409 and slug(r) == "idempotency-key-reused", r.text
        assert "Idempotent-Replayed" not in r.headers
    assert await holds_of(deps, uid) == 1


async def test_item14_expired_lock_cannot_settle_and_duration_is_capped(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 100 * UNIT)
    other = await funded_user(world, deps, api.project.project_id, 0)
    too_far = await api.post("/v1/funds/lock", lock_body(uid, expires_at=later(days=91)))
    assert too_far.status_code == 422 and slug(too_far) == "validation-error", too_far.text
    lock = await api.post("/v1/funds/lock", lock_body(uid, "10"))
    assert lock.status_code == 201, lock.text
    lock_id = lock.json()["data"]["id"]
    # Its expires_at has passed, but its timer has not fired yet.
    async with deps.sessions() as s:
        await s.execute(
            update(Hold)
            .where(Hold.id == lock_id)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        await s.commit()
    body = {
        "transfer_type": "auction_settlement",
        "from_uid": uid,
        "to_uid": other,
        "currency": "MCC",
        "amount": "10",
        "reference": {"lock_id": lock_id},
    }
    r = await api.post("/v1/transfer/request", body)
    assert r.status_code == 409 and slug(r) == "invalid-state", r.text
    assert await transfers_of(deps, uid) == 0


async def test_item18_hostile_money_input_is_422_and_writes_nothing(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 100 * UNIT)
    other = await funded_user(world, deps, api.project.project_id, 0)
    nested: Any = {"x": 1}
    for _ in range(700):
        nested = {"n": nested}
    cases: list[tuple[str, dict[str, Any], int]] = [
        ("/v1/funds/lock", lock_body(uid, "1" * 4301), 422),
        ("/v1/funds/lock", lock_body(uid, "9" * 30), 422),
        ("/v1/funds/lock", lock_body(uid, "10\n"), 422),
        ("/v1/funds/lock", lock_body(uid, expires_at="9999-12-31T23:59:59-14:00"), 422),
        ("/v1/funds/lock", lock_body(uid, reason="bid\x00"), 422),
        ("/v1/funds/lock", lock_body(uid, reference_id="a\x00b"), 422),
        ("/v1/funds/lock", lock_body(uid + "\x00"), 422),
        ("/v1/transfer/request", {
            "transfer_type": "t\x00", "from_uid": uid, "to_uid": other, "currency": "MCC",
            "amount": "1",
        }, 422),
        ("/v1/transfer/request", {
            "transfer_type": "t", "from_uid": uid, "to_uid": other, "currency": "MCC",
            "amount": "1", "reference": {"k\x00": "v"},
        }, 422),
        ("/v1/transfer/request", {
            "transfer_type": "t", "from_uid": uid, "to_uid": other, "currency": "MCC",
            "amount": "1", "reference": nested,
        }, 422),
        ("/v1/transfer/request", {
            "transfer_type": "t", "from_uid": uid, "to_uid": other, "currency": "MCC",
            "amount": "1", "requires_onchain": "yes",
        }, 422),
    ]  # fmt: skip
    for path, body, status in cases:
        r = await api.post(path, body)
        assert r.status_code == status, (path, str(body)[:120], r.status_code, r.text[:300])
        assert r.headers["content-type"].startswith("application/problem+json")
    pages = ("/v1/funds/locked/{uid}?page=999999999999999999", "/v1/mining/records?page=1e9")
    for path in pages:
        r = await api.get(path.format(uid=uid))
        assert r.status_code == 422, (path, r.text)
    r = await api.get(f"/v1/funds/locked/{uid}%00x")
    assert r.status_code == 422, r.text
    assert await holds_of(deps, uid) == 0 and await transfers_of(deps, uid) == 0
