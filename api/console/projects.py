"""Console pages of onboarding: applications (review, approve, the one-time secret, reject)
and projects (their status machine). Every action calls the admin API's own services
(onboarding.applications, onboarding.status) and starts the approval the way the API does."""

from __future__ import annotations

import json
import uuid
from typing import Any

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from access.ratelimit import TIER_LIMITS
from api.callers import actor_of
from api.console import pages
from api.starts import start_approval
from chain import whitelist as wl
from core.config import Settings
from core.errors import DomainError
from core.workflow_ids import approval_workflow_id
from db.models import Project
from db.models.access import AuditLog
from db.models.identity import RATE_LIMIT_TIERS
from db.models.onboarding import APPLICATION_STATUSES as STORED_APPLICATION_STATUSES
from events.audit import audit_action
from onboarding import applications, control, queries
from onboarding import status as machine

router = pages.console_router()

# ``approving`` is no longer entered (db/models/onboarding.py).
APPLICATION_STATUSES = (*(s for s in STORED_APPLICATION_STATUSES if s != "approving"), "all")
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
    """Approve with new credentials (the API's service): the page then offers the one-time
    secret at once and follows the whitelist entry, which ApprovalWorkflow (started after the
    commit) writes on chain."""
    settings: Settings = request.app.state.settings
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        tier = form.get("rate_limit_tier", "free")
        if tier not in RATE_LIMIT_TIERS:
            raise _invalid(f"rate_limit_tier must be one of {', '.join(RATE_LIMIT_TIERS)}")
        approval = await applications.begin_approval(
            session, application_id, principal.uid, settings.master_key, settings.master_key_id,
            wl.program_id(settings), None, tier,
        )  # fmt: skip
        row = approval.application
        if approval.approved_now:
            audit_action(
                session, actor_of(request, principal.uid), "admin.applications.approve",
                row.project_id, None,
                {"application_id": str(application_id), "rate_limit_tier": tier, "via": "console"},
                {"status": row.status, "whitelist_status": row.whitelist_status},
            )  # fmt: skip
        pending = row.whitelist_status == "pending"
        await session.commit()
    if pending:
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
            raise _invalid("A reason of 1-2000 characters is required")
        await applications.reject(session, application_id, reason, principal.uid)
        audit_action(
            session, actor_of(request, principal.uid), "admin.applications.reject", None, None,
            {"application_id": str(application_id), "reason": reason, "via": "console"},
            {"status": "rejected"},
        )  # fmt: skip
        await session.commit()
    return RedirectResponse(f"/console/applications/{application_id}", 303)


# Projects, filterable by status and by name / id.
pages.status_listing(
    router, "/projects", "projects.html", queries.projects, PROJECT_STATUSES, "all",
    [Project.project_id],
)  # fmt: skip


def _invalid(detail: str) -> DomainError:
    return DomainError(detail, status=422, slug="validation-error", title="Validation error")


# The administrator and owner actions a project page lists (its audit trail).
PROJECT_ACTIONS = (
    "admin.projects.update", "admin.projects.status", "projects.api_secret.roll",
    "admin.applications.approve",
)  # fmt: skip
OVERLAPS = (("24 hours", 86400), ("1 hour", 3600), ("7 days", 7 * 86400), ("none: stop now", 0))


async def _actions(session: AsyncSession, project_id: int) -> list[AuditLog]:
    rows = await session.scalars(
        select(AuditLog)
        .where(AuditLog.project_id == project_id, AuditLog.operation.in_(PROJECT_ACTIONS))
        .order_by(AuditLog.created_at.desc())
        .limit(20)
    )
    return list(rows)


@router.get("/projects/{project_id}")
async def project_page(request: Request, project_id: int) -> Response:
    missing = f"Project {project_id} does not exist"
    project, read = await pages.detail(
        request, Project, project_id, missing,
        history=machine.history, application=queries.application_of, actions=_actions,
    )  # fmt: skip
    application = read["application"]
    return pages.render(
        request, "project.html", project=project, history=read["history"],
        targets=sorted(machine.TRANSITIONS.get(project.status, ())),
        approval=approval_workflow_id(str(application.id)) if application else None,
        actions=read["actions"], tiers=RATE_LIMIT_TIERS, tier_limits=TIER_LIMITS,
        overlaps=OVERLAPS, limits_json=json.dumps(project.limits or {}),
    )  # fmt: skip


def _settings_form(form: dict[str, str]) -> dict[str, Any]:
    """The settings form as PATCH /v1/admin/projects's changes (checked the same way)."""
    changes: dict[str, Any] = {}
    tier = form.get("rate_limit_tier", "")
    if tier:
        if tier not in RATE_LIMIT_TIERS:
            raise _invalid(f"rate_limit_tier must be one of {', '.join(RATE_LIMIT_TIERS)}")
        changes["rate_limit_tier"] = tier
    try:
        limits = json.loads(form.get("limits", "").strip() or "{}")
        if not isinstance(limits, dict):
            raise ValueError("limits must be a JSON object")
        changes["limits"] = control.check_limits(limits)
        lines = form.get("ip_allowlist", "").replace(",", "\n").splitlines()
        changes["ip_allowlist"] = control.check_allowlist([x for x in lines if x.strip()])
    except ValueError as exc:
        raise _invalid(str(exc)) from exc
    return changes


@router.post("/projects/{project_id}/settings")
async def project_settings(request: Request, project_id: int) -> Response:
    """Tier, amount limits and IP allow-list: the admin API's own service (audited)."""
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        changes = _settings_form(form)
        reason = form.get("reason", "").strip()[:2000] or None
        await control.change_settings(
            session, project_id, changes, reason=reason, actor=actor_of(request, principal.uid)
        )
        await session.commit()
    return RedirectResponse(f"/console/projects/{project_id}?done=settings", 303)


@router.post("/projects/{project_id}/roll")
async def project_roll(request: Request, project_id: int) -> Response:
    """Roll the api_secret (the admin API's own service); the new secret is shown once."""
    settings: Settings = request.app.state.settings
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        raw = form.get("expire_previous_in_seconds", "86400").strip()
        if not raw.isdigit():
            raise _invalid("expire_previous_in_seconds must be a whole number of seconds")
        rolled = await control.roll_api_secret(
            session, project_id, int(raw), actor=actor_of(request, principal.uid),
            master_key=settings.master_key, master_key_id=settings.master_key_id,
            reason=form.get("reason", "").strip()[:2000] or None,
        )  # fmt: skip
        await session.commit()
    response = pages.render(
        request, "rolled.html", project=rolled.project, secret=rolled.api_secret,
        previous_expires_at=rolled.previous_expires_at,
    )  # fmt: skip
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/projects/{project_id}/status")
async def project_status(request: Request, project_id: int) -> Response:
    """The status machine of the admin API (onboarding.status.change_status)."""
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        target = form.get("status", "")
        reason = form.get("reason", "").strip()[:2000] or None
        _, record = await machine.change_status(
            session, project_id, target, reason=reason, changed_by=principal.uid
        )
        audit_action(
            session, actor_of(request, principal.uid), "admin.projects.status", project_id, None,
            {"status": target, "reason": reason, "via": "console"},
            {"from_status": record.from_status, "status": record.status},
        )  # fmt: skip
        await session.commit()
    return RedirectResponse(f"/console/projects/{project_id}", 303)
