"""Webhook registration, SSRF refusal, signed delivery, retries, disabling and redelivery,
against a real HTTP receiver on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from core.workflow_ids import pump_workflow_id
from db.models.access import IdempotencyRecord
from db.models.webhooks import WebhookEndpoint
from events.outbox import emit
from tests.factories import ProjectCreds, World
from tests.stack import new_queue, running_worker
from tests.webhooks.support import (
    FAST_WEBHOOKS,
    Receiver,
    eventually,
    project_headers,
    verify_signature,
)
from workflows.pump import ensure_pump

SECRET = "whsec_test_0123456789abcdef"


async def register(
    client: httpx.AsyncClient, creds: ProjectCreds, url: str, **extra: Any
) -> httpx.Response:
    body = {
        "url": url,
        "events": ["mining.reward.confirmed", "funds.locked"],
        "idempotency_key": uuid.uuid4().hex,
        **extra,
    }
    return await client.post("/v1/webhooks/register", json=body, headers=project_headers(creds))


async def emit_event(
    sessions: async_sessionmaker[AsyncSession], project_id: int, type_: str = "funds.locked"
) -> str:
    event_id = f"evt_{uuid.uuid4().hex}"
    async with sessions() as session:
        await emit(
            session, project_id=project_id, type=type_, data={"n": 1, "x": "é"}, event_id=event_id
        )
        await session.commit()
    return event_id


async def deliveries(client: httpx.AsyncClient, creds: ProjectCreds, endpoint_id: str) -> Any:
    r = await client.get(f"/v1/webhooks/{endpoint_id}/deliveries", headers=project_headers(creds))
    assert r.status_code == 200, r.text
    return r.json()


async def test_register_list_update_delete(
    client: httpx.AsyncClient, world: World, receiver: Receiver
) -> None:
    creds = await world.project()
    r = await register(client, creds, receiver.url)
    assert r.status_code == 201, r.text
    created = r.json()["data"]
    assert created["type"] == "webhook_endpoint" and created["id"].startswith("whk_")
    generated = created["attributes"]["secret"]
    assert generated.startswith("whsec_") and len(generated) > 32

    r = await register(client, creds, receiver.url, secret=SECRET)
    assert r.status_code == 201 and "secret" not in r.json()["data"]["attributes"]

    listed = await client.get("/v1/webhooks", headers=project_headers(creds))
    assert listed.status_code == 200
    body = listed.json()
    assert body["meta"]["total"] == 2
    assert all("secret" not in item["attributes"] for item in body["data"])

    patched = await client.patch(
        f"/v1/webhooks/{created['id']}",
        json={"events": ["transfer.failed"], "idempotency_key": uuid.uuid4().hex},
        headers=project_headers(creds),
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["data"]["attributes"]["events"] == ["transfer.failed"]

    other = await world.project()
    r = await client.get(f"/v1/webhooks/{created['id']}", headers=project_headers(other))
    assert r.status_code == 404

    deleted = await client.delete(
        f"/v1/webhooks/{created['id']}", headers=project_headers(creds, uuid.uuid4().hex)
    )
    assert (
        deleted.status_code == 200 and deleted.json()["data"]["attributes"]["status"] == "deleted"
    )
    listed = await client.get("/v1/webhooks", headers=project_headers(creds))
    assert listed.json()["meta"]["total"] == 1

    bad = await client.post(
        "/v1/webhooks/register",
        json={"url": receiver.url, "events": ["funds.stolen"], "idempotency_key": "k1"},
        headers=project_headers(creds),
    )
    assert bad.status_code == 422 and bad.json()["type"].endswith("/validation-error")


async def test_secret_is_stored_encrypted(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project()
    r = await register(client, creds, receiver.url, secret=SECRET)
    async with session_maker() as session:
        row = await session.get(WebhookEndpoint, r.json()["data"]["id"])
    assert row is not None and SECRET not in row.secret_encrypted


def _ends_with(value: object, tail: bytes) -> bool:
    return isinstance(value, bytes) and value.endswith(tail)


async def test_a_generated_secret_is_stored_sealed_and_replayed_whole(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    session_maker: async_sessionmaker[AsyncSession],
    redis: Redis,
) -> None:
    creds = await world.project()
    key = uuid.uuid4().hex
    first = await register(client, creds, receiver.url, idempotency_key=key)
    assert first.status_code == 201, first.text
    generated = first.json()["data"]["attributes"]["secret"]
    # Neither the stored record nor Redis's copy of the answer holds the secret in clear.
    async with session_maker() as session:
        stored = await session.scalar(
            select(IdempotencyRecord.response_body).where(IdempotencyRecord.key == key)
        )
    assert stored is not None and generated.encode() not in stored
    cached = [await redis.get(k) async for k in redis.scan_iter(match="idem:done:*")]
    assert cached and not any(v and generated.encode() in v for v in cached)
    # A retry of the same request gets the same answer, secret included, exactly once created.
    again = await register(client, creds, receiver.url, idempotency_key=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    # Redis forgets the answer: the sealed PostgreSQL record gives the same one.
    ours = [
        k
        async for k in redis.scan_iter(match="idem:done:*")
        if _ends_with(await redis.get(k), stored)
    ]
    assert len(ours) == 1
    await redis.delete(*ours)
    third = await register(client, creds, receiver.url, idempotency_key=key)
    assert third.status_code == 201 and third.json() == first.json()
    listed = (await client.get("/v1/webhooks", headers=project_headers(creds))).json()
    assert listed["meta"]["total"] == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/hook",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://[::1]/hook",
        "https://10.1.2.3/hook",
        "https://192.168.0.10/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://224.0.0.1/hook",
        "https://0.0.0.0/hook",
        "https://100.64.0.1/hook",
        "https://user:pw@example.com/hook",
        "ftp://example.com/hook",
        "http://example.com/hook",
        "not a url",
    ],
)
async def test_ssrf_refused_when_not_allowed(
    client: httpx.AsyncClient,
    world: World,
    api_webhooks: Callable[..., None],
    url: str,
) -> None:
    api_webhooks(webhook_allow_loopback=False)
    creds = await world.project()
    r = await register(client, creds, url)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "url"


async def test_ssrf_allowed_when_configured(
    client: httpx.AsyncClient, world: World, api_webhooks: Callable[..., None]
) -> None:
    creds = await world.project()
    hosts = ("10.0.0.0/8", "hooks.internal.test")
    api_webhooks(webhook_allow_loopback=False, webhook_allowed_hosts=hosts)
    assert (await register(client, creds, "http://10.1.2.3:8080/hook")).status_code == 201
    assert (await register(client, creds, "http://hooks.internal.test/x")).status_code == 201
    assert (await register(client, creds, "https://192.168.1.1/x")).status_code == 422
    api_webhooks(webhook_allow_loopback=True, webhook_allowed_hosts=hosts)
    assert (await register(client, creds, "http://127.0.0.1:9/hook")).status_code == 201
    assert (await register(client, creds, "http://localhost:9/hook")).status_code == 201


async def test_delivery_is_signed_per_spec(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project()
    r = await register(client, creds, receiver.url, secret=SECRET)
    endpoint_id = r.json()["data"]["id"]
    event_id = await emit_event(session_maker, creds.project_id)
    await emit_event(session_maker, creds.project_id, "transfer.failed")  # not subscribed

    [got] = await receiver.wait_for(1)
    headers = {k.lower(): v for k, v in got.headers.items()}
    assert verify_signature(SECRET, got.body, headers["x-service-signature"])
    assert not verify_signature("another secret", got.body, headers["x-service-signature"])
    assert headers["x-service-event"] == "funds.locked"
    assert headers["x-service-delivery"].startswith("dlv_")
    assert headers["x-service-timestamp"].isdigit()
    assert headers["content-type"] == "application/json"
    body = got.json
    assert set(body) == {"id", "type", "created_at", "data"}
    assert body["id"] == event_id and body["type"] == "funds.locked"
    assert body["data"] == {"n": 1, "x": "é"} and body["created_at"].endswith("Z")

    async def succeeded() -> Any:
        log = await deliveries(client, creds, endpoint_id)
        return (
            log if log["data"] and log["data"][0]["attributes"]["status"] == "succeeded" else None
        )

    log = await eventually(succeeded)
    assert log["meta"]["total"] == 1
    attempt = log["data"][0]["attributes"]["attempt_log"][0]
    assert attempt["status_code"] == 200 and attempt["error"] is None
    assert attempt["latency_ms"] >= 0


async def test_retries_after_500_timeout_and_downtime_lose_nothing(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    receiver = Receiver()
    await receiver.start()
    await receiver.stop()  # down: connections refused until it comes back on the same port
    creds = await world.project()
    r = await register(client, creds, receiver.url, secret=SECRET)
    endpoint_id = r.json()["data"]["id"]
    event_id = await emit_event(session_maker, creds.project_id)

    async def attempts(n: int) -> Any:
        log = await deliveries(client, creds, endpoint_id)
        return log if log["data"] and log["data"][0]["attributes"]["attempts"] >= n else None

    await eventually(lambda: attempts(1))
    receiver.script = [500, ("sleep", 2.0)]  # then 200
    await receiver.start(receiver.port)
    try:
        # Three attempts with the pump's back-off between them: slow in a full run.
        got = await receiver.wait_for(3, seconds=40)
    finally:
        await receiver.stop()
    ids = {g.headers["X-Service-Delivery"] for g in got}
    assert len(ids) == 1  # stable across retries
    assert all(g.json["id"] == event_id for g in got)
    assert all(verify_signature(SECRET, g.body, g.headers["X-Service-Signature"]) for g in got)

    async def done() -> Any:
        log = await deliveries(client, creds, endpoint_id)
        return log if log["data"][0]["attributes"]["status"] == "succeeded" else None

    item = (await eventually(done))["data"][0]["attributes"]
    log = item["attempt_log"]
    assert log[0]["status_code"] is None and log[0]["error"]  # refused while down
    assert [a["status_code"] for a in log[-3:]] == [500, None, 200]
    assert "timed out" in log[-2]["error"]


# The worker's settings (read at its start, before the registration starts the pump).
@pytest.mark.webhooks(
    webhook_disable_after_seconds=0.3, webhook_retry_schedule=(0, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2)
)
async def test_failing_endpoint_is_disabled_then_reenabled_delivers(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project()
    receiver.script = [500] * 100
    r = await register(client, creds, receiver.url, secret=SECRET)
    endpoint_id = r.json()["data"]["id"]
    await emit_event(session_maker, creds.project_id)

    async def disabled() -> bool:
        async with session_maker() as session:
            row = await session.get(WebhookEndpoint, endpoint_id)
            return row is not None and row.status == "disabled"

    await eventually(disabled)
    seen = len(receiver.received)
    log = await deliveries(client, creds, endpoint_id)
    assert log["data"][0]["attributes"]["status"] == "pending"  # kept, not lost

    receiver.script = []
    r = await client.patch(
        f"/v1/webhooks/{endpoint_id}",
        json={"enabled": True, "idempotency_key": uuid.uuid4().hex},
        headers=project_headers(creds),
    )
    assert r.status_code == 200 and r.json()["data"]["attributes"]["status"] == "active"
    await receiver.wait_for(seen + 1)

    async def succeeded() -> Any:
        log = await deliveries(client, creds, endpoint_id)
        return log["data"][0]["attributes"]["status"] == "succeeded"

    await eventually(succeeded)


@pytest.mark.webhooks(webhook_retry_schedule=(0, 0.1))
async def test_failed_delivery_can_be_redelivered(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project()
    receiver.script = [500, 503]
    r = await register(client, creds, receiver.url, secret=SECRET)
    endpoint_id = r.json()["data"]["id"]
    await emit_event(session_maker, creds.project_id)

    async def failed() -> Any:
        log = await deliveries(client, creds, endpoint_id)
        return log if log["data"] and log["data"][0]["attributes"]["status"] == "failed" else None

    item = (await eventually(failed))["data"][0]
    attempts = item["attributes"]["attempt_log"]
    assert [a["status_code"] for a in attempts] == [500, 503], attempts

    other = await world.project()
    r = await client.post(
        f"/v1/webhooks/deliveries/{item['id']}/redeliver",
        headers=project_headers(other, uuid.uuid4().hex),
    )
    assert r.status_code == 404
    r = await client.post(
        f"/v1/webhooks/deliveries/{item['id']}/redeliver",
        headers=project_headers(creds, uuid.uuid4().hex),
    )
    assert r.status_code == 202, r.text
    got = await receiver.wait_for(3)
    assert got[-1].headers["X-Service-Delivery"] == item["id"]

    async def succeeded() -> Any:
        log = await deliveries(client, creds, endpoint_id)
        return log["data"][0]["attributes"]["status"] == "succeeded"

    await eventually(succeeded)
    async with session_maker() as session:
        assert (
            await session.scalar(
                select(WebhookEndpoint.status).where(WebhookEndpoint.id == endpoint_id)
            )
        ) == "active"


# An idle pump that only polled would look every 30 s here: each step below must be woken
# instead (issue 33): the new event by PostgreSQL's NOTIFY, the retry by its own due time,
# the redelivery by NOTIFY again.
@pytest.mark.webhooks(
    webhook_poll_seconds=30.0, webhook_idle_poll_seconds=30.0, webhook_retry_schedule=(0, 0.3)
)
async def test_an_idle_pump_is_woken_by_work_not_by_polling(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project()
    receiver.script = [500]  # then 200: the retry is the second request
    r = await register(client, creds, receiver.url, secret=SECRET)
    endpoint_id = r.json()["data"]["id"]
    await asyncio.sleep(1.0)  # the pump has started and found nothing to do
    event_id = await emit_event(session_maker, creds.project_id)
    got = await receiver.wait_for(2, seconds=10)
    assert [g.json["id"] for g in got] == [event_id, event_id]

    async def succeeded() -> Any:
        log = await deliveries(client, creds, endpoint_id)
        item = log["data"][0] if log["data"] else None
        return item if item and item["attributes"]["status"] == "succeeded" else None

    item = await eventually(succeeded, 10)
    r = await client.post(
        f"/v1/webhooks/deliveries/{item['id']}/redeliver",
        headers=project_headers(creds, uuid.uuid4().hex),
    )
    assert r.status_code == 202, r.text
    got = await receiver.wait_for(3, seconds=10)
    assert got[-1].headers["X-Service-Delivery"] == item["id"]


async def test_an_idle_pump_lets_its_worker_shut_down_without_waiting_out_the_grace(
    temporal_env: WorkflowEnvironment, worker_settings: Settings
) -> None:
    """A deploy stops workers: an idle pump (here polling every 30 s) ends its activity as soon
    as the worker starts shutting down, instead of holding the shutdown for the worker's whole
    grace period (10 s, worker.py) until Temporal cancels it."""
    queue = new_queue("pump-stop")
    settings = worker_settings.model_copy(
        update={**FAST_WEBHOOKS, "webhook_poll_seconds": 30.0, "webhook_idle_poll_seconds": 30.0}
    )
    handle = temporal_env.client.get_workflow_handle(pump_workflow_id(queue))
    try:
        async with running_worker(temporal_env.client, settings, queue):
            await ensure_pump(temporal_env.client, queue)

            async def pumping() -> bool:
                pending = (await handle.describe()).raw_description.pending_activities
                return any(a.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                           for a in pending)  # fmt: skip

            await eventually(pumping, 20)
            await asyncio.sleep(0.5)  # idle: waiting for work, a notification or its poll
            stopping = time.monotonic()
        took = time.monotonic() - stopping
    finally:
        with contextlib.suppress(Exception):
            await handle.terminate()
    assert took < 10.0, f"the worker's shutdown waited {took:.1f} s for its idle pump"


async def test_the_claim_runs_one_statement_built_once_and_leases_what_it_takes(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    deps: Any,
    app_settings: Settings,
) -> None:
    """The pump's claim (after every fan-out) runs one statement built once, not an expression
    (and its cache key) per call, with each call's own limit and lease: three due deliveries
    taken two, then one, then none (with when the next one is due: the lease's end). The old
    code built the statement per call."""
    from sqlalchemy import event as sa_event

    from db.models.webhooks import WebhookDelivery
    from webhooks.delivery import Deliveries

    creds = await world.project()
    r = await register(client, creds, receiver.url, secret=SECRET)
    assert r.status_code == 201, r.text
    for _ in range(3):
        await emit_event(deps.sessions, creds.project_id)
    settings = app_settings.webhooks
    store = Deliveries(
        deps.sessions, {app_settings.master_key_id: app_settings.master_key}, settings
    )
    assert await store.fan_out() >= 3

    bind = deps.sessions.kw["bind"].sync_engine
    seen: list[object] = []

    def on_execute(conn: object, clause: object, *args: object) -> None:
        seen.append(clause)

    taken: list[int] = []
    firsts: list[object] = []
    sa_event.listen(bind, "before_execute", on_execute)
    try:
        for _ in range(3):
            seen.clear()
            taken.append(len(await store.claim(2)))
            firsts.append(seen[0])
    finally:
        sa_event.remove(bind, "before_execute", on_execute)
    assert taken == [2, 1, 0]
    assert firsts[0] is firsts[1] is firsts[2]
    lease = settings.lease_seconds
    assert store._next_due is not None and lease - 5 <= store._next_due <= lease
    async with deps.sessions() as s:
        due = (
            (
                await s.execute(
                    select(
                        func.extract("epoch", WebhookDelivery.next_attempt_at - func.now())
                    ).where(WebhookDelivery.endpoint_id == r.json()["data"]["id"])
                )
            )
            .scalars()
            .all()
        )
    assert len(due) == 3 and all(lease - 5 <= float(d) <= lease for d in due)
