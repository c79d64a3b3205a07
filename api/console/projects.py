"""Console pages of onboarding: applications (review, approve, the one-time secret, reject)
and projects (their status machine). Every action calls the admin API's own services
(onboarding.applications, onboarding.status) and starts the approval the way the API does."""

from __future__ import annotations

import uuid

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from api.console import pages
from api.starts import start_approval
from core.config import Settings
from core.errors import DomainError
from db.models import Project
from db.models.onboarding import APPLICATION_STATUSES as STORED_APPLICATION_STATUSES
from onboarding import applications, queries
from onboarding import status as machine
from workflows.approval import workflow_id as approval_workflow_id

router = pages.console_router()

APPLICATION_STATUSES = (*STORED_APPLICATION_STATUSES, "all")
PROJECT_STATUSES = ("all", *machine.TRANSITIONS)


# Applications, filterable by status and by project name / developer e-mail.
pages.status_listing(
    router, "/applications", "applications.html", queries.applications, APPLICATION_STATUSES,
    "pending", queries.NEWEST_APPLICATIONS_FIRST, approval_workflow_id=approval_workflow_id,
)  # fmt: skip


async def _application_page(request: Request, application_id: uuid.UUID, name: str) -> Response:
    async with pages.sessions(request) as session:
        await pages.admin(request, session)
        row = await queries.application(session, application_id)
    return pages.render(request, name, app=row, workflow_id=approval_workflow_id(str(row.id)))


@router.get("/applications/{application_id}")
async def application_page(request: Request, application_id: uuid.UUID) -> Response:
    return await _application_page(request, application_id, "application.html")


@router.get("/applications/{application_id}/progress")
async def application_progress(request: Request, application_id: uuid.UUID) -> Response:
    """The approval's progress fragment (polled by the page until the approval is done)."""
    return await _application_page(request, application_id, "_progress.html")


@router.post("/applications/{application_id}/approve")
async def application_approve(request: Request, application_id: uuid.UUID) -> Response:
    """Mark approving with new credentials (the API's service), start ApprovalWorkflow after
    the commit; the page then polls the progress fragment while the chain finalizes."""
    settings: Settings = request.app.state.settings
    async with pages.sessions(request) as session:
        _, principal, _ = await pages.post(request, session)
        row = await applications.begin_approval(
            session, application_id, principal.uid, settings.master_key, settings.master_key_id
        )
        status = row.status
        await session.commit()
    if status == "approving":
        await start_approval(request, str(application_id), principal.uid)
    return RedirectResponse(f"/console/applications/{application_id}", 303)


@router.post("/applications/{application_id}/secret")
async def application_secret(request: Request, application_id: uuid.UUID) -> Response:
    """Show the one-time api_secret of an approved application (then it is gone)."""
    settings: Settings = request.app.state.settings
    async with pages.sessions(request) as session:
        await pages.post(request, session)
        row, secret = await applications.take_secret(
            session, application_id, {settings.master_key_id: settings.master_key}
        )
        await session.commit()
        await session.refresh(row)
    response = pages.render(
        request, "secret.html", app=row, secret=secret,
        workflow_id=approval_workflow_id(str(row.id)),
    )  # fmt: skip
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/applications/{application_id}/reject")
async def application_reject(request: Request, application_id: uuid.UUID) -> Response:
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        reason = form.get("reason", "").strip()
        if not 1 <= len(reason) <= 2000:
            raise DomainError(
                "A reason of 1-2000 characters is required", status=422,
                slug="validation-error", title="Validation error",
            )  # fmt: skip
        await applications.reject(session, application_id, reason, principal.uid)
        await session.commit()
    return RedirectResponse(f"/console/applications/{application_id}", 303)


# Projects, filterable by status and by name / id.
pages.status_listing(
    router, "/projects", "projects.html", queries.projects, PROJECT_STATUSES, "all",
    [Project.project_id],
)  # fmt: skip


@router.get("/projects/{project_id}")
async def project_page(request: Request, project_id: int) -> Response:
    missing = f"Project {project_id} does not exist"
    project, read = await pages.detail(
        request, Project, project_id, missing,
        history=machine.history, application=queries.application_of,
    )  # fmt: skip
    application = read["application"]
    return pages.render(
        request, "project.html", project=project, history=read["history"],
        targets=sorted(machine.TRANSITIONS.get(project.status, ())),
        approval=approval_workflow_id(str(application.id)) if application else None,
    )  # fmt: skip


@router.post("/projects/{project_id}/status")
async def project_status(request: Request, project_id: int) -> Response:
    """The status machine of the admin API (onboarding.status.change_status)."""
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        target = form.get("status", "")
        reason = form.get("reason", "").strip()[:2000] or None
        await machine.change_status(
            session, project_id, target, reason=reason, changed_by=principal.uid
        )
        await session.commit()
    return RedirectResponse(f"/console/projects/{project_id}", 303)
