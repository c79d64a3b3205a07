"""The named scenario histories of tests/workflows/record.py: the main paths of the workflows,
which a placeholder input never reaches (``histories/<WorkflowType>.<scenario>.json``).

Each scenario builds its data on a real world the way the test suite does (tests/factories.py
``World``, users funded on chain by ``tests.engine.conftest.funded_user``, signed mining
submissions of ``tests.mining.test_mining``), then makes the API call that starts the workflow
in production (the app's own start, after its commit, on the recorder's task queue) and says
which workflow it started and what its result must show: a recording that ends anywhere else
fails instead of writing a history of another path.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select
from temporalio.client import Client
from temporalio.service import RPCError

from activities.deps import WorkerDeps
from core.config import Settings
from core.workflow_ids import (
    approval_workflow_id,
    lock_workflow_id,
    pump_workflow_id,
    transfer_workflow_id,
)
from db.models.mining import MiningSubmission
from tests.engine.conftest import UNIT, Api, funded_user
from tests.factories import World
from tests.mining.test_mining import activity, setup, submit
from tests.onboarding.conftest import Actors, application_body
from tests.stack import asgi_client, running_app


@dataclass
class Stage:
    """The real app (on the recorder's worker queue), its in-process client and the world."""

    temporal: Client
    client: httpx.AsyncClient
    world: World
    deps: WorkerDeps


@dataclass(frozen=True)
class Scenario:
    # Builds the world, makes the production call; the id of the workflow it started.
    start: Callable[[Stage], Awaitable[str]]
    # The workflow's result (as JSON) shows it took the path this scenario records.
    reached: Callable[[Any], bool]


def _created(r: httpx.Response, *codes: int) -> dict[str, Any]:
    if r.status_code not in codes:
        raise RuntimeError(f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text}")
    data: dict[str, Any] = r.json()["data"]
    return data


async def _api(stage: Stage) -> tuple[Api, str]:
    """A project's API and a user of it owning 50 MCC on chain and in the ledger."""
    api = Api(stage.client, await stage.world.project())
    uid = await funded_user(stage.world, stage.deps, api.project.project_id, 50 * UNIT)
    return api, uid


async def transfer_completed(stage: Stage) -> str:
    """A committed transfer settled on chain: ``transfer_settle`` completes, Status is set."""
    api, src = await _api(stage)
    dst = await funded_user(stage.world, stage.deps, api.project.project_id, 0)
    body = {
        "transfer_type": "auction_settlement", "from_uid": src, "to_uid": dst,
        "currency": "MCC", "amount": "20", "reference": {"auction_id": "recorded"},
        "requires_onchain": True,
    }  # fmt: skip
    data = _created(await api.post("/v1/transfer/request", body), 202)
    return transfer_workflow_id(data["id"])


async def _lock(stage: Stage, expires_at: datetime) -> tuple[Api, str]:
    api, uid = await _api(stage)
    body = {
        "user_uid": uid, "currency": "MCC", "amount": "30", "reason": "auction_bid",
        "reference_id": "recorded", "expires_at": expires_at.isoformat(),
    }  # fmt: skip
    return api, str(_created(await api.post("/v1/funds/lock", body), 201)["id"])


async def lock_unlocked(stage: Stage) -> str:
    """A real lock unlocked through the API: the signal ends the timer early."""
    api, lock_id = await _lock(stage, datetime.now(UTC) + timedelta(hours=1))
    _created(await api.post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "outbid"}), 200)
    return lock_workflow_id(lock_id)


async def lock_expired(stage: Stage) -> str:
    """A real lock left to its timer: ``lock_expire`` releases the hold."""
    _, lock_id = await _lock(stage, datetime.now(UTC) + timedelta(seconds=2))
    return lock_workflow_id(lock_id)


async def mining_confirmed(stage: Stage) -> str:
    """One signed submission: the single ``mining.settle_single`` mints and confirms."""
    creds, uid = await setup(stage.client, stage.world)
    data = _created(await submit(stage.client, creds, activity(uid, creds.secret)), 202)
    async with stage.deps.sessions() as s:
        workflow_id = await s.scalar(
            select(MiningSubmission.workflow_id).where(MiningSubmission.id == data["id"])
        )
    if workflow_id is None:
        raise RuntimeError(f"submission {data['id']} not recorded")
    return workflow_id


async def approval_approved(stage: Stage) -> str:
    """An application approved by an admin: project created, whitelisted on chain, recorded."""
    actors = Actors(stage.world)
    _, dev = await actors.developer()
    applied = await stage.client.post("/v1/projects/apply", json=application_body(), headers=dev)
    app_id = str(_created(applied, 201)["id"])
    url = f"/v1/admin/projects/applications/{app_id}/approve"
    _created(await stage.client.post(url, headers=await actors.admin()), 200)
    return approval_workflow_id(app_id)


SCENARIOS: dict[str, Scenario] = {
    "TransferWorkflow.completed": Scenario(
        transfer_completed, lambda r: r["status"] == "completed" and bool(r["signature"])
    ),
    "MiningSubmissionWorkflow.confirmed": Scenario(
        mining_confirmed, lambda r: len(r["confirmed"]) == 1 and not r["rejected"] + r["failed"]
    ),
    "FundLockWorkflow.unlocked": Scenario(lock_unlocked, lambda r: r["status"] == "unlocked"),
    "FundLockWorkflow.expired": Scenario(lock_expired, lambda r: r["status"] == "expired"),
    "ApprovalWorkflow.approved": Scenario(
        approval_approved, lambda r: r["project_id"] > 0 and bool(r["whitelist_tx"])
    ),
}


def scenario_type(name: str) -> str:
    """The workflow type of a history's name: ``TransferWorkflow.completed`` -> its type."""
    return name.split(".", 1)[0]


@contextlib.asynccontextmanager
async def stage(
    temporal: Client, settings: Settings, deps: WorkerDeps, queue: str
) -> AsyncIterator[Stage]:
    """The real app, starting its workflows on ``queue`` (where the recorder's worker polls)."""
    address = temporal.service_client.config.target_host
    app_settings = settings.model_copy(update={"temporal_address": address})
    started = running_app(app_settings, temporal=temporal, task_queue=queue)
    async with started as app, asgi_client(app) as client:
        # Amount-bearing routes answer 503 until the app has read the mints' decimals.
        await asyncio.wait_for(app.state.gateway.warm_up(), timeout=60)
        try:
            yield Stage(temporal, client, World(deps.sessions, app_settings, app), deps)
        finally:  # the pump a mining submission starts on this queue
            with contextlib.suppress(RPCError):
                await temporal.get_workflow_handle(pump_workflow_id(queue)).terminate("recorded")
