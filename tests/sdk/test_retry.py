"""Retries and idempotency: the answer to a write is lost, the SDK retries with the same key and
the gateway replays its first answer; nothing happens twice. Real app, PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mccgw_client import ApiKeyAuth, AsyncClient, Client, HmacAuth, RetryPolicy
from mccgw_client.errors import (
    IdempotencyKeyReused,
    InvalidSignature,
    ServiceUnavailable,
    TransportError,
)
from redis.asyncio import Redis
from sqlalchemy import func, select

from db.models.access import AuditLog, IdempotencyRecord, UserProjectAttribute
from tests.factories import World
from tests.sdk.conftest import BASE, Consented, DropAnswers, DropAnswersSync

FAST = RetryPolicy(max_attempts=4, backoff=0.01, max_backoff=0.05)


async def effects(world: World, uid: str, key: str) -> tuple[int | None, ...]:
    """(attribute rows of the user, successful audit rows, idempotency records) for ``key``."""
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
    return rows, audits, records


def sent_body(request: httpx.Request) -> dict[str, Any]:
    body = json.loads(request.content)
    assert isinstance(body, dict)
    return body


async def test_lost_answer_hmac_async_replays_and_nothing_doubles(
    app: FastAPI, world: World, consented: Consented
) -> None:
    transport = DropAnswers(app, drop=1)
    creds = consented.creds
    async with AsyncClient(
        BASE, HmacAuth(creds.project_id, creds.secret), retry=FAST, transport=transport
    ) as gw:
        answer = await gw.post(
            f"/v1/users/{consented.uid}/attributes",
            json={"attribute_key": "level", "attribute_value": {"rank": "gold"}},
        )
    assert answer.status_code == 200 and answer.attempts == 2
    assert answer.replayed  # the second attempt got the stored first answer
    first, second = transport.requests
    # The first attempt was executed by the gateway (its answer was only lost on the way).
    assert transport.answers[0].status_code == 200
    assert transport.answers[0].headers.get("idempotent-replayed") is None
    assert answer.content == transport.answers[0].content  # byte for byte
    # One logical call: one generated key, in the body (covered by the signature) each time.
    key = answer.idempotency_key
    assert key and sent_body(first)["idempotency_key"] == sent_body(second)["idempotency_key"]
    assert sent_body(first) == sent_body(second) and "idempotency-key" not in first.headers
    # Each attempt signed afresh: a write's signature is accepted once.
    assert first.headers["x-signature"] != second.headers["x-signature"]
    assert int(second.headers["x-timestamp"]) > int(first.headers["x-timestamp"])
    assert await effects(world, consented.uid, key) == (1, 1, 1)


async def test_lost_answer_api_key_sync_over_a_socket(
    live_url: str, world: World, consented: Consented
) -> None:
    transport = DropAnswersSync(drop=2)
    creds = consented.creds

    def call() -> Any:
        with Client(
            live_url, ApiKeyAuth(creds.project_id, creds.secret), retry=FAST, transport=transport
        ) as gw:
            return gw.post(
                f"/v1/users/{consented.uid}/attributes",
                json={"attribute_key": "xp", "attribute_value": 7},
                idempotency_key="sync-lost-1",
            )

    answer = await asyncio.to_thread(call)
    assert answer.attempts == 3 and answer.replayed and answer.idempotency_key == "sync-lost-1"
    assert [r.headers.get("idempotent-replayed") for r in transport.answers] == [
        None,
        "true",
        "true",
    ]
    assert await effects(world, consented.uid, "sync-lost-1") == (1, 1, 1)
    # A new logical call with the same key but another body is refused, typed.
    with pytest.raises(IdempotencyKeyReused) as refused:
        await asyncio.to_thread(
            lambda: Client(live_url, ApiKeyAuth(creds.project_id, creds.secret)).post(
                f"/v1/users/{consented.uid}/attributes",
                json={"attribute_key": "xp", "attribute_value": 8},
                idempotency_key="sync-lost-1",
            )
        )
    assert refused.value.status == 409 and refused.value.request_id


async def test_write_without_key_is_never_retried(app: FastAPI, consented: Consented) -> None:
    transport = DropAnswers(app, drop=1)
    creds = consented.creds
    async with AsyncClient(
        BASE, ApiKeyAuth(creds.project_id, creds.secret), retry=FAST, transport=transport
    ) as gw:
        with pytest.raises(TransportError):
            await gw.post(
                f"/v1/users/{consented.uid}/attributes",
                json={"attribute_key": "k", "attribute_value": 1},
                idempotency_key=False,
            )
    assert len(transport.requests) == 1
    assert "idempotency_key" not in sent_body(transport.requests[0])


async def test_reads_are_retried_and_signed_reads_may_repeat(
    app: FastAPI, consented: Consented
) -> None:
    transport = DropAnswers(app, drop=1)
    creds = consented.creds
    async with AsyncClient(
        BASE, HmacAuth(creds.project_id, creds.secret), retry=FAST, transport=transport
    ) as gw:
        answer = await gw.get("/v1/_probe/funds")
        assert answer.body == {"project_id": creds.project_id, "method": "hmac"}
        assert answer.attempts == 2
        # Two identical signed reads inside one second carry different timestamps, so the
        # gateway's replay check (today applied to reads too) never refuses the second.
        again = await gw.get("/v1/_probe/funds")
        assert again.status_code == 200
    stamps = [int(r.headers["x-timestamp"]) for r in transport.requests]
    assert stamps == sorted(set(stamps))


async def test_in_use_key_is_waited_for(
    app: FastAPI, world: World, consented: Consented, redis: Redis
) -> None:
    """409 idempotency-key-in-use (the first request still running): retried with back-off."""
    creds = consented.creds
    key = "sdk-busy-1"
    lock = f"idem:p:{creds.project_id}:{hashlib.sha256(key.encode()).hexdigest()}"
    await redis.set(lock, "someone-else", ex=30)
    transport = DropAnswers(app, drop=0)
    policy = RetryPolicy(max_attempts=6, backoff=0.1, max_backoff=0.2)

    async def release() -> None:
        await asyncio.sleep(0.25)
        await redis.delete(lock)

    async with AsyncClient(
        BASE, ApiKeyAuth(creds.project_id, creds.secret), retry=policy, transport=transport
    ) as gw:
        releaser = asyncio.create_task(release())
        answer = await gw.post(
            f"/v1/users/{consented.uid}/attributes",
            json={"attribute_key": "busy", "attribute_value": 1},
            idempotency_key=key,
        )
        await releaser
    assert answer.status_code == 200 and answer.attempts >= 2
    assert transport.answers[0].status_code == 409
    assert await effects(world, consented.uid, key) == (1, 1, 1)


# --- Retry-After and back-off, on a scripted server (exact timing, no waiting) -------------


class Scripted(httpx.BaseTransport):
    def __init__(self, *answers: httpx.Response) -> None:
        self.script = list(answers)
        self.requests: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.script.pop(0)


def problem(status: int, slug: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"type": f"{BASE}/errors/{slug}", "title": slug, "status": status, "detail": slug}
    return httpx.Response(status, json=body, headers=headers)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr("mccgw_client.client.time.sleep", slept.append)
    return slept


def test_retry_after_is_honoured(sleeps: list[float]) -> None:
    transport = Scripted(
        problem(429, "rate-limit-exceeded", {"Retry-After": "3"}),
        problem(503, "service-unavailable", {"Retry-After": "1"}),
        httpx.Response(201, json={"data": {"id": "x"}}),
    )
    with Client(BASE, ApiKeyAuth(1, "s"), transport=transport) as gw:
        answer = gw.post("/v1/funds/lock", json={"amount": "1"})
    assert answer.status_code == 201 and answer.attempts == 3
    assert sleeps == [3.0, 1.0]
    keys = {sent_body(r)["idempotency_key"] for r in transport.requests}
    assert keys == {answer.idempotency_key}


def test_backoff_grows_and_gives_up(sleeps: list[float]) -> None:
    transport = Scripted(*(problem(503, "service-unavailable") for _ in range(4)))
    policy = RetryPolicy(max_attempts=4, backoff=1.0, max_backoff=3.0)
    with (
        Client(BASE, ApiKeyAuth(1, "s"), retry=policy, transport=transport) as gw,
        pytest.raises(ServiceUnavailable) as exc,
    ):
        gw.get("/v1/transfer/t1")
    assert exc.value.status == 503 and len(transport.requests) == 4
    ceilings = [1.0, 2.0, 3.0]  # full jitter under 1, 2, then the 3 s cap
    assert len(sleeps) == 3 and all(0 <= s <= c for s, c in zip(sleeps, ceilings, strict=True))


def test_no_retry_without_key_nor_past_max_retry_after(sleeps: list[float]) -> None:
    transport = Scripted(problem(503, "service-unavailable", {"Retry-After": "1"}))
    with (
        Client(BASE, ApiKeyAuth(1, "s"), transport=transport) as gw,
        pytest.raises(ServiceUnavailable),
    ):
        gw.post("/v1/funds/lock", json={"amount": "1"}, idempotency_key=False)
    transport = Scripted(problem(429, "rate-limit-exceeded", {"Retry-After": "3600"}))
    with (
        Client(BASE, ApiKeyAuth(1, "s"), transport=transport) as gw,
        pytest.raises(Exception) as exc,
    ):
        gw.get("/v1/funds/locked/u1")
    assert getattr(exc.value, "retry_after", None) == 3600.0
    # A list body cannot carry a key: such a write is sent once.
    transport = Scripted(problem(503, "service-unavailable"))
    with (
        Client(BASE, ApiKeyAuth(1, "s"), transport=transport) as gw,
        pytest.raises(ServiceUnavailable),
    ):
        gw.post("/v1/something", json=[1, 2])
    assert sleeps == []


async def test_same_write_signed_by_two_clients_in_one_second(
    app: FastAPI, world: World, consented: Consented
) -> None:
    """Two processes send the same write (same key) in the same second: the same signature,
    which the gateway takes once. The second client signs again in the next second and gets
    the replayed answer; a wrong secret is still refused after that one extra attempt."""
    creds = consented.creds
    now = int(time.time())
    body = {"attribute_key": "twice", "attribute_value": 1, "idempotency_key": "two-procs"}
    path = f"/v1/users/{consented.uid}/attributes"
    answers, transports = [], []
    for _ in range(2):
        transport = DropAnswers(app, drop=0)
        auth = HmacAuth(creds.project_id, creds.secret, clock=lambda: now)
        async with AsyncClient(BASE, auth, retry=FAST, transport=transport) as gw:
            answers.append(await gw.post(path, json=body))
        transports.append(transport)
    assert [a.attempts for a in answers] == [1, 2] and answers[1].replayed
    assert transports[1].answers[0].json()["type"].endswith("/invalid-signature")
    assert answers[0].content == answers[1].content
    assert await effects(world, consented.uid, "two-procs") == (1, 1, 1)

    transport = DropAnswers(app, drop=0)
    async with AsyncClient(
        BASE, HmacAuth(creds.project_id, "wrong"), retry=FAST, transport=transport
    ) as gw:
        with pytest.raises(InvalidSignature):
            await gw.post(path, json=body)
    assert len(transport.requests) == 2
