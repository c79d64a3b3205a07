"""Fund locks through the API: reserve before answering, unlock once, expire by timer, never
over-reserve under concurrency, and refuse without any partial write."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from activities.deps import WorkerDeps
from db.models.engine import LimitUsage
from db.models.events import Event
from db.models.ledger import Hold
from ledger.service import Ledger
from tests.engine.conftest import UNIT, Api, funded_user
from tests.factories import World


def later(seconds: float = 3600) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def lock_body(uid: str, amount: str, **extra: object) -> dict[str, object]:
    return {
        "user_uid": uid,
        "currency": "MCC",
        "amount": amount,
        "reason": "auction_bid",
        "reference_id": "auction-1",
        "expires_at": later(),
        **extra,
    }


async def events(sessions: async_sessionmaker[AsyncSession], lock_id: str) -> list[Event]:
    async with sessions() as s:
        rows = await s.scalars(
            select(Event).where(Event.data["lock_id"].astext == lock_id).order_by(Event.created_at)
        )
        return list(rows)


async def test_lock_then_unlock_exactly_once(
    api: Api, world: World, deps: WorkerDeps, app: FastAPI
) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 100 * UNIT)
    r = await api.post("/v1/funds/lock", lock_body(uid, "30"))
    assert r.status_code == 201, r.text
    data = r.json()["data"]
    lock_id = data["id"]
    assert data["type"] == "fund_lock"
    assert data["attributes"]["status"] == "locked"
    assert data["attributes"]["amount"] == "30"
    assert data["attributes"]["available_balance"] == "70"
    assert data["attributes"]["locked_until"]
    # Committed before the answer.
    async with deps.sessions() as s:
        assert (await Ledger(s).balances(uid, "MCC")).held == 30 * UNIT

    listed = await api.get(f"/v1/funds/locked/{uid}")
    assert listed.status_code == 200
    assert [i["id"] for i in listed.json()["data"]] == [lock_id]
    assert listed.json()["meta"]["total"] == 1

    r = await api.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "outbid"})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["status"] == "unlocked"
    assert r.json()["data"]["attributes"]["available_balance"] == "100"
    again = await api.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "outbid"})
    assert again.status_code == 409
    assert again.json()["type"].endswith("/invalid-state")
    assert (await api.get(f"/v1/funds/locked/{uid}")).json()["data"] == []
    kinds = [e.type for e in await events(deps.sessions, lock_id)]
    assert kinds == ["funds.locked", "funds.unlocked"]

    # The timer workflow was told and ended early.
    handle = app.state.temporal.get_workflow_handle(f"funds-lock-{lock_id}")
    assert (await asyncio.wait_for(handle.result(), 10))["status"] == "unlocked"


async def test_lock_expires_by_its_timer(api: Api, world: World, deps: WorkerDeps) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    r = await api.post("/v1/funds/lock", lock_body(uid, "4", expires_at=later(2)))
    assert r.status_code == 201, r.text
    lock_id = r.json()["data"]["id"]
    status = "active"
    for _ in range(100):
        async with deps.sessions() as s:
            status = str(await s.scalar(select(Hold.status).where(Hold.id == lock_id)))
        if status != "active":
            break
        await asyncio.sleep(0.1)
    assert status == "expired"
    async with deps.sessions() as s:
        assert (await Ledger(s).balances(uid, "MCC")).available == 10 * UNIT
    unlocked = [e for e in await events(deps.sessions, lock_id) if e.type == "funds.unlocked"]
    assert len(unlocked) == 1 and unlocked[0].data["reason"] == "expired"
    # Unlocking an expired lock is a state conflict, not a second release.
    r = await api.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "late"})
    assert r.status_code == 409


async def test_fifty_concurrent_locks_never_exceed_the_balance(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    uid = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    results = await asyncio.gather(
        *(api.post("/v1/funds/lock", lock_body(uid, "1")) for _ in range(50))
    )
    codes = sorted(r.status_code for r in results)
    assert codes.count(201) == 10, codes
    assert codes.count(422) == 40
    assert all(
        r.json()["type"].endswith("/insufficient-funds") for r in results if r.status_code == 422
    )
    async with deps.sessions() as s:
        b = await Ledger(s).balances(uid, "MCC")
        assert (b.held, b.available) == (10 * UNIT, 0)
        n = await s.scalar(select(func.count()).select_from(Hold).where(Hold.user_uid == uid))
        assert n == 10


async def _usage(sessions: async_sessionmaker[AsyncSession], project_id: int) -> int:
    async with sessions() as s:
        return int(
            await s.scalar(
                select(func.coalesce(func.sum(LimitUsage.used), 0)).where(
                    LimitUsage.project_id == project_id
                )
            )
            or 0
        )


async def test_refusals_leave_no_partial_write(api: Api, world: World, deps: WorkerDeps) -> None:
    project = await world.project(
        limits={"fund_lock": {"MCC": {"per_operation": "5", "per_day": "8"}}}
    )
    api = Api(api.client, project)
    uid = await funded_user(world, deps, project.project_id, 20 * UNIT)

    async def state() -> tuple[int, int, int]:
        async with deps.sessions() as s:
            holds = await s.scalar(
                select(func.count()).select_from(Hold).where(Hold.user_uid == uid)
            )
            evts = await s.scalar(
                select(func.count())
                .select_from(Event)
                .where(Event.project_id == project.project_id)
            )
        return int(holds or 0), int(evts or 0), await _usage(deps.sessions, project.project_id)

    r = await api.post("/v1/funds/lock", lock_body(uid, "6"))
    assert r.status_code == 422 and r.json()["type"].endswith("/amount-limit-exceeded"), r.text
    assert await state() == (0, 0, 0)
    for bad, slug in (
        (lock_body(uid, "1.0000000001"), "invalid-amount"),
        (lock_body(uid, "-1"), "invalid-amount"),
        (lock_body(uid, "1e3"), "invalid-amount"),
        (lock_body(uid, "1", expires_at=later(-5)), "validation-error"),
        (lock_body(uid, "1", currency="BTC"), "validation-error"),
    ):
        r = await api.post("/v1/funds/lock", bad)
        assert r.status_code == 422 and r.json()["type"].endswith(f"/{slug}"), (bad, r.text)
    assert await state() == (0, 0, 0)

    assert (await api.post("/v1/funds/lock", lock_body(uid, "5"))).status_code == 201
    r = await api.post("/v1/funds/lock", lock_body(uid, "4"))
    assert r.status_code == 422 and r.json()["type"].endswith("/daily-limit-exceeded"), r.text
    assert await state() == (1, 1, 5 * UNIT)

    # Over the balance (within limits on another project): nothing written either.
    other = Api(api.client, await world.project())
    await world.consent(uid, other.project.project_id)
    r = await other.post("/v1/funds/lock", lock_body(uid, "16"))
    assert r.status_code == 422 and r.json()["type"].endswith("/insufficient-funds"), r.text
    assert await _usage(deps.sessions, other.project.project_id) == 0

    stranger = await world.user()
    r = await api.post("/v1/funds/lock", lock_body(stranger.uid, "1"))
    assert r.status_code == 403
    assert r.json()["type"].endswith("/user-not-authorized-for-project")
    assert await state() == (1, 1, 5 * UNIT)


# The reads a lock and its unlock no longer make (issue 43, proposal 14): the lock before
# locking it, the event before inserting it, the balance after the move.
_REREADS = (
    "FROM holds \nWHERE holds.id =",
    "FROM events \nWHERE events.id =",
    "SELECT ledger_accounts.balance, ledger_accounts.held, ledger_accounts.pending_out",
)


async def test_a_lock_and_its_unlock_read_no_row_they_write(
    api: Api, world: World, deps: WorkerDeps, app: FastAPI
) -> None:
    """The hold and the event are inserted ``ON CONFLICT DO NOTHING`` (their RETURNING tells a
    repeat) and the balance shown is the ledger move's RETURNING: no statement of the lock or
    the unlock reads them again, and the answers are unchanged."""
    uid = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    seen: list[str] = []

    def note(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        seen.append(statement)

    engine = app.state.session_maker.kw["bind"].sync_engine
    event.listen(engine, "before_cursor_execute", note)
    try:
        r = await api.post("/v1/funds/lock", lock_body(uid, "4"))
        assert r.status_code == 201, r.text
        assert r.json()["data"]["attributes"]["available_balance"] == "6"
        lock_id = r.json()["data"]["id"]
        r = await api.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "outbid"})
        assert r.status_code == 200, r.text
        assert r.json()["data"]["attributes"]["available_balance"] == "10"
    finally:
        event.remove(engine, "before_cursor_execute", note)
    assert seen, "no statement seen: the listener is on the wrong engine"
    rereads = [s for s in seen if any(p in s for p in _REREADS)]
    assert rereads == []
    assert [e.type for e in await events(deps.sessions, lock_id)] == [
        "funds.locked",
        "funds.unlocked",
    ]


async def test_a_repeated_lock_replays_even_when_its_own_reservation_left_nothing(
    api: Api, world: World, deps: WorkerDeps, redis: Redis
) -> None:
    """Redis forgot the key: the repeat meets the recorded hold before any reservation or
    limit of its own, so it is answered as the first run was (not ``insufficient-funds``, which
    the first run's own reservation would now cause), and writes nothing."""
    uid = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    key = uuid.uuid4().hex
    body = {**lock_body(uid, "10"), "idempotency_key": key}
    first = await api.post("/v1/funds/lock", body)
    assert first.status_code == 201, first.text
    scope = f"p:{api.project.project_id}"
    await redis.delete(f"idem:done:{scope}:{hashlib.sha256(key.encode()).hexdigest()}")
    again = await api.post("/v1/funds/lock", body)
    assert again.status_code == 201, again.text
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == first.json()
    lock_id = first.json()["data"]["id"]
    async with deps.sessions() as s:
        n = await s.scalar(select(func.count()).select_from(Hold).where(Hold.user_uid == uid))
        assert n == 1
        assert (await Ledger(s).balances(uid, "MCC")).held == 10 * UNIT
    assert [e.type for e in await events(deps.sessions, lock_id)] == ["funds.locked"]


async def test_unlocking_another_projects_lock_is_not_found_and_leaves_it(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    """The unlock's UPDATE names the project: a lock of another project is a 404, untouched."""
    uid = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    lock_id = (await api.post("/v1/funds/lock", lock_body(uid, "3"))).json()["data"]["id"]
    other = Api(api.client, await world.project())
    r = await other.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "theft"})
    assert r.status_code == 404, r.text
    async with deps.sessions() as s:
        assert await s.scalar(select(Hold.status).where(Hold.id == lock_id)) == "active"
    r = await api.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "outbid"})
    assert r.status_code == 200, r.text
