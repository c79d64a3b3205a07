"""An admin's whitelist change is written on chain by WhitelistChangeWorkflow, not by the API:
with no worker on its queue the call answers 503 and the change stays pending (nothing sent);
once a worker runs, the repeated call joins the same workflow and answers 200, one chain write."""

from __future__ import annotations

import uuid

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from core.workflow_ids import whitelist_change_workflow_id
from db.models.access import AuditLog
from db.models.chain import ChainTransaction
from db.models.onboarding import McdWhitelistEntry
from onboarding import whitelist_entries
from tests.onboarding.conftest import Actors, application_body
from tests.stack import running_worker, sweep


async def _approved_project(client: httpx.AsyncClient, actors: Actors) -> int:
    admin = await actors.admin()
    _, dev = await actors.developer()
    applied = await client.post("/v1/projects/apply", json=application_body(), headers=dev)
    assert applied.status_code == 201, applied.text
    url = f"/v1/admin/projects/applications/{applied.json()['data']['id']}/approve"
    approved = await client.post(url, headers=admin)
    assert approved.status_code == 200, approved.text
    return int(approved.json()["data"]["attributes"]["project_id"])


async def test_whitelist_change_runs_in_its_workflow(
    app: FastAPI,
    client: httpx.AsyncClient,
    actors: Actors,
    worker: str,
    temporal_env: WorkflowEnvironment,
    worker_settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    project_id = await _approved_project(client, actors)
    admin = await actors.admin()
    url = f"/v1/admin/mcd/whitelist/{project_id}/status"
    op_key = f"whitelist:{project_id}:suspend:1"

    async def writes() -> int:
        async with session_maker() as s:
            statement = select(func.count()).where(ChainTransaction.op_key == op_key)
            return int(await s.scalar(statement) or 0)

    saved = (app.state.task_queue, getattr(app.state, "whitelist_wait_seconds", None))
    idle_queue = f"whitelist-idle-{uuid.uuid4().hex[:8]}"
    app.state.task_queue, app.state.whitelist_wait_seconds = idle_queue, 1.0
    try:
        pending = await client.put(url, json={"status": "suspended"}, headers=admin)
        assert pending.status_code == 503, pending.text
        assert pending.headers["retry-after"] == "5"
        async with session_maker() as s:
            entry = await s.scalar(
                select(McdWhitelistEntry).where(McdWhitelistEntry.project_id == project_id)
            )
            assert entry is not None
            assert (entry.status, entry.pending_action) == ("active", "suspend")
        assert await writes() == 0  # the API wrote nothing on chain

        async with running_worker(temporal_env.client, worker_settings, idle_queue):
            app.state.whitelist_wait_seconds = 30.0
            done = await client.put(url, json={"status": "suspended"}, headers=admin)
            assert done.status_code == 200, done.text
            attrs = done.json()["data"]["attributes"]
            assert (attrs["status"], attrs["pending_action"]) == ("suspended", None)
            assert list(attrs)[:2] == ["status", "updated_at"]  # the wire order of old
    finally:
        app.state.task_queue, app.state.whitelist_wait_seconds = saved[0], saved[1] or 30.0
    assert await writes() == 1
    described = await temporal_env.client.get_workflow_handle(
        whitelist_change_workflow_id(op_key)
    ).describe()
    assert described.status == WorkflowExecutionStatus.COMPLETED
    # The administrator's change is audited once (the repeated call drove the same change).
    async with session_maker() as s:
        audits = (
            await s.scalars(
                select(AuditLog).where(
                    AuditLog.project_id == project_id,
                    AuditLog.operation == "admin.whitelist.suspend",
                )
            )
        ).all()
    assert len(audits) == 1 and audits[0].actor.startswith("user:")
    assert audits[0].response_body == {"op_key": op_key}


async def test_sweep_drives_a_pending_change_whose_workflow_never_started(
    client: httpx.AsyncClient,
    actors: Actors,
    worker: str,
    queue: str,
    temporal_env: WorkflowEnvironment,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """The API committed the pending change and died before starting its workflow: the
    recovery sweep starts it by the same id, the chain is written once, the entry settles."""
    project_id = await _approved_project(client, actors)
    async with session_maker() as s:  # what the status route commits before its start
        change = await whitelist_entries.begin_change(s, project_id, "suspend")
        assert change is not None
        await s.commit()

    _, started = await sweep(temporal_env.client, queue)
    assert started >= 1
    handle = temporal_env.client.get_workflow_handle(whitelist_change_workflow_id(change.op_key))
    done = await handle.result()
    first_run = (await handle.describe()).run_id
    async with session_maker() as s:
        entry = await s.scalar(
            select(McdWhitelistEntry).where(McdWhitelistEntry.project_id == project_id)
        )
        assert entry is not None
        assert (entry.status, entry.pending_op_key, entry.last_tx) == (
            "suspended", None, done["signature"],
        )  # fmt: skip
    # A second sweep leaves the settled change alone: no new run, still one chain write.
    await sweep(temporal_env.client, queue)
    assert (await handle.describe()).run_id == first_run
    async with session_maker() as s:
        writes = select(func.count()).where(ChainTransaction.op_key == change.op_key)
        assert await s.scalar(writes) == 1
