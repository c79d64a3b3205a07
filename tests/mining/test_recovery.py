"""A submission committed without its workflow (the API died between its commit and the start)
is not lost: the recovery sweep starts the workflow with the same id and input, the reward is
confirmed once, and a second sweep changes nothing."""

from __future__ import annotations

import asyncio
import uuid
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from api.routes import mining as mining_routes
from db.models import Event
from db.models.ledger import LedgerEntry
from ledger.service import Ledger
from tests.factories import World
from tests.mining.test_mining import activity, setup, status_of, submit, wait_status
from tests.stack import sweep
from tests.webhooks.support import project_headers


async def _count(sessions: async_sessionmaker[AsyncSession], *where: Any) -> int:
    async with sessions() as s:
        return int(await s.scalar(select(func.count()).where(*where)) or 0)


async def test_committed_submissions_without_workflow_are_confirmed_once_by_the_sweep(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    temporal_env: WorkflowEnvironment,
    session_maker: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    creds, uid = await setup(client, world)
    # The crash between commit and start: the answer is sent, the start never runs.
    monkeypatch.setattr(mining_routes, "_start_soon", lambda *args: None)
    single = await submit(client, creds, activity(uid, creds.secret))
    assert single.status_code == 202, single.text
    items = [activity(uid, creds.secret, data={"trade_count": n}) for n in (1, 2)]
    r = await client.post(
        "/v1/mining/batch-submit",
        json={"activities": items, "idempotency_key": uuid.uuid4().hex},
        headers=project_headers(creds),
    )
    assert r.status_code == 200 and r.json()["meta"]["accepted"] == 2, r.text
    ids = [single.json()["data"]["id"]] + [
        i["attributes"]["activity"]["id"] for i in r.json()["data"]
    ]
    await asyncio.sleep(0.5)
    for submission_id in ids:  # durable, but unattended
        assert (await status_of(client, creds, submission_id))["status"] == "pending_verification"

    found, started = await sweep(temporal_env.client, worker)
    assert found >= 2 and started >= 2  # the single one and the batch: one workflow each
    for submission_id in ids:
        final = await wait_status(client, creds, submission_id, "confirmed", "failed", "rejected")
        assert final["status"] == "confirmed", final

    # A second sweep leaves them alone: one credit and one confirmed event per submission.
    await sweep(temporal_env.client, worker)
    await asyncio.sleep(1.0)
    for submission_id in ids:
        reference = f"mining:{submission_id}"
        assert await _count(session_maker, LedgerEntry.reference == reference) == 1
        event_id = f"evt_{submission_id}_reward_confirmed"
        assert await _count(session_maker, Event.id == event_id) == 1
    async with session_maker() as s:
        balance = await Ledger(s).balances(uid, "MCD")
    amounts = [(await status_of(client, creds, i))["mcd_amount"] for i in ids]
    assert balance.balance == sum(int(Decimal(a) * 10**9) for a in amounts)
