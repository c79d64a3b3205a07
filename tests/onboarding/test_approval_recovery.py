"""An approval committed without its workflow (the API died between the commit and the start:
the keys made, the whitelist entry not written) is finished by the recovery sweep, with the
scopes the administrator chose: the project is made in the approver's transaction, so the sweep
needs nothing but the application id."""

from __future__ import annotations

import uuid

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from chain import whitelist as wl
from core.config import Settings
from core.workflow_ids import approval_workflow_id
from db.models import Project
from db.models.onboarding import ProjectApplication
from onboarding import applications
from tests.factories import World
from tests.onboarding.conftest import Actors, application_body
from tests.stack import sweep


async def test_sweep_finishes_an_approval_whose_workflow_never_started(
    client: httpx.AsyncClient,
    actors: Actors,
    world: World,
    worker: str,
    queue: str,
    temporal_env: WorkflowEnvironment,
    worker_settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    _, dev = await actors.developer()
    applied = await client.post("/v1/projects/apply", json=application_body(), headers=dev)
    assert applied.status_code == 201, applied.text
    app_id = uuid.UUID(applied.json()["data"]["id"])
    admin = await world.user("admin")
    async with session_maker() as s:  # what the approve route commits before starting
        approval = await applications.begin_approval(
            s, app_id, admin.uid, worker_settings.master_key, worker_settings.master_key_id,
            wl.program_id(worker_settings), ["funds:read"],
        )  # fmt: skip
        row = approval.application
        assert approval.approved_now and row.project_id is not None
        assert (row.status, row.whitelist_status, row.whitelist_tx) == ("approved", "pending", None)
        await s.commit()

    _, started = await sweep(temporal_env.client, queue)
    assert started >= 1
    handle = temporal_env.client.get_workflow_handle(approval_workflow_id(str(app_id)))
    done = await handle.result()
    assert done["project_id"] == row.project_id

    async with session_maker() as s:
        stored = await s.get(ProjectApplication, app_id)
        project = await s.get(Project, row.project_id)
        assert stored is not None and stored.status == "approved" and stored.whitelist_tx
        assert stored.whitelist_status == "active"
        assert project is not None and project.allowed_scopes == ["funds:read"]
    # The approver's repeated call (the first answer was lost) hands out the secret, once.
    url = f"/v1/admin/projects/applications/{app_id}/approve"
    headers = await actors.admin()
    secret = await client.post(url, headers=headers)
    assert secret.status_code == 200, secret.text
    attributes = secret.json()["data"]["attributes"]
    assert attributes["api_secret"].startswith("sk_")
    assert attributes["whitelist_status"] == "active" and attributes["whitelist_tx"]
    assert (await client.post(url, headers=headers)).status_code == 409
