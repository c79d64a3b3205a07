"""Nothing accepted is lost when the workflow could not be started: with Temporal unreachable
at accept time, the transfer, the lock and the withdrawal are still committed and answered, and
the recovery sweep later starts their workflows (by their derived ids, so never twice)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps
from api.app import create_app
from core.config import Settings
from core.embedded import free_port
from db.models.ledger import Hold
from db.models.withdrawals import Withdrawal
from tests.engine.conftest import UNIT, Api, funded_user
from tests.engine.test_transfers import transfer_body, wait_final
from tests.engine.withdrawing import holder
from tests.factories import World
from tests.stack import sweep


@pytest.fixture
async def offline_api(app_settings: Settings, api: Api) -> AsyncIterator[Api]:
    """The same project, through an API process whose Temporal address answers nothing."""
    dead = app_settings.model_copy(update={"temporal_address": f"127.0.0.1:{free_port()}"})
    app: FastAPI = create_app(dead)
    async with app.router.lifespan_context(app):
        app.state.project_authenticator.cache_seconds = 0.0
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield Api(c, api.project)


async def test_transfer_accepted_while_temporal_is_down_completes_after_the_sweep(
    api: Api, offline_api: Api, world: World, deps: WorkerDeps,
    temporal_env: WorkflowEnvironment, queue: str,
) -> None:  # fmt: skip
    src = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    dst = await funded_user(world, deps, api.project.project_id, 0)
    r = await offline_api.post("/v1/transfer/request", transfer_body(src, dst, "3"))
    assert r.status_code == 202, r.text  # durably accepted although no workflow runs yet
    transfer_id = r.json()["data"]["id"]
    await asyncio.sleep(0.5)
    still = (await api.get(f"/v1/transfer/{transfer_id}")).json()["data"]["attributes"]
    assert still["status"] == "pending"

    found, started = await sweep(temporal_env.client, queue)
    assert found >= 1 and started >= 1
    final = await wait_final(api, transfer_id)
    assert final["status"] == "completed", final
    assert await deps.gateway.custody_balance(dst, "MCC") == 3 * UNIT

    # A second sweep leaves the finished transfer alone: one chain transfer, not two.
    await sweep(temporal_env.client, queue)
    await asyncio.sleep(0.5)
    assert await deps.gateway.custody_balance(dst, "MCC") == 3 * UNIT


async def test_lock_accepted_while_temporal_is_down_still_expires(
    api: Api, offline_api: Api, world: World, deps: WorkerDeps,
    temporal_env: WorkflowEnvironment, queue: str,
) -> None:  # fmt: skip
    uid = await funded_user(world, deps, api.project.project_id, 5 * UNIT)
    # Far enough ahead that a loaded machine still accepts it as future, near enough to wait out.
    expires = (datetime.now(UTC) + timedelta(seconds=4)).isoformat()
    body = {"user_uid": uid, "currency": "MCC", "amount": "2", "reason": "auction_bid"}
    r = await offline_api.post("/v1/funds/lock", {**body, "expires_at": expires})
    assert r.status_code == 201, r.text
    lock_id = r.json()["data"]["id"]
    await asyncio.sleep(4.5)  # past expiry, and no timer was ever started
    async with deps.sessions() as s:
        assert await s.scalar(select(Hold.status).where(Hold.id == lock_id)) == "active"

    await sweep(temporal_env.client, queue)
    status = "active"
    for _ in range(100):
        async with deps.sessions() as s:
            status = str(await s.scalar(select(Hold.status).where(Hold.id == lock_id)))
        if status != "active":
            break
        await asyncio.sleep(0.1)
    assert status == "expired"


async def test_withdrawal_accepted_while_temporal_is_down_is_sent_after_the_sweep(
    api: Api, offline_api: Api, world: World, deps: WorkerDeps,
    temporal_env: WorkflowEnvironment, queue: str,
) -> None:  # fmt: skip
    """A withdrawal committed without its workflow: the sweep starts it (by its derived id),
    it is sent once; a workflow that has looked at its withdrawal is never started again."""
    user = await holder(world, deps, offline_api.client, 10 * UNIT)
    r = await user.withdraw("4")
    assert r.status_code == 202, r.text
    withdrawal_id = r.json()["data"]["id"]
    await asyncio.sleep(0.5)
    async with deps.sessions() as s:
        w = await s.get(Withdrawal, withdrawal_id)
        assert w is not None and w.status == "pending" and w.workflow_seen_at is None

    found, started = await sweep(temporal_env.client, queue)
    assert found >= 1 and started >= 1
    user.client = api.client
    final = await user.until(withdrawal_id)
    assert final["status"] == "completed", final
    destination = deps.gateway.wallet_token_account(user.owner, "MCC")
    assert await deps.gateway.token_balance(destination, "finalized") == 4 * UNIT
    await sweep(temporal_env.client, queue)  # seen: left alone
    await asyncio.sleep(0.5)
    assert await deps.gateway.token_balance(destination, "finalized") == 4 * UNIT
