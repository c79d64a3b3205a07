"""Administrators register projects and move them through the project status machine."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from access.scopes import PROJECT_SCOPES
from api.callers import ADMIN_PROBLEMS, AdminCaller, ProjectIdPath, actor_of
from api.deps import SessionDep, SettingsDep
from api.envelope import PageQuery, page, resource, single
from api.idempotency import IdempotencyKey, write_context
from api.openapi import problems
from api.schemas.inputs import RedirectUris
from api.schemas.onboarding import (
    AdminProjectAttributes,
    RegisteredProjectAttributes,
    StatusChangeAttributes,
)
from api.typed import Many, One
from db.models import Project
from db.paging import page_of
from events.audit import audit_action
from onboarding import control, registration
from onboarding import status as machine
from webhooks import endpoints

router = APIRouter(tags=["projects"])

ProjectStatus = Literal["active", "maintenance", "testing", "discontinued", "deleted"]
Tier = Literal["free", "standard", "enterprise"]


class ProjectRegistrationIn(BaseModel):
    """Spec "Project registration by an administrator"."""

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "project_id": "2001",
                    "name": "Partner Arena",
                    "description": "Tournaments",
                    "webhook_url": "https://arena.example/hooks",
                    "allowed_scopes": ["mining:write", "mining:read"],
                    "rate_limit_tier": "standard",
                }
            ]
        }
    }

    project_id: str | None = Field(
        None, pattern=r"^[1-9][0-9]{0,17}$", description="Optional; assigned when absent"
    )
    name: str = Field(min_length=3, max_length=100)
    description: str | None = Field(None, max_length=2000)
    webhook_url: str | None = Field(None, max_length=500, pattern=r"^https?://")
    allowed_scopes: list[str] = Field(default_factory=list, max_length=20)
    rate_limit_tier: Literal["free", "standard", "enterprise"] = "free"
    redirect_uris: RedirectUris = Field(
        default_factory=list,
        description="OAuth redirect URIs of the project's client (the project can change them)",
    )
    idempotency_key: IdempotencyKey = None

    @field_validator("allowed_scopes")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(PROJECT_SCOPES))
        if unknown:
            raise ValueError(f"unknown project scopes: {', '.join(unknown)}")
        return sorted(set(value))


class StatusChangeIn(BaseModel):
    status: ProjectStatus
    reason: str | None = Field(None, max_length=2000)

    model_config = {
        "json_schema_extra": {"examples": [{"status": "maintenance", "reason": "DB upgrade"}]}
    }


@router.post(
    "/projects/register",
    status_code=201,
    response_model=One[RegisteredProjectAttributes],
    responses=ADMIN_PROBLEMS
    | problems(
        422,
        s409="The project_id is taken (`project-exists`); the key was used with another body "
        "(`idempotency-key-reused`)",
    ),
)
async def register_project(
    payload: ProjectRegistrationIn, admin: AdminCaller, request: Request, settings: SettingsDep
) -> Any:
    """Register a project directly (administrator); idempotent on its key. The api_secret (and,
    with `webhook_url`, the secret of the webhook endpoint made for it, subscribed to every
    event) are returned once; a retry with the same key replays this answer."""
    if payload.webhook_url is not None:
        await endpoints.checked_url(
            payload.webhook_url, settings.webhooks, field="webhook_url", resolve=False
        )
    fields = payload.model_dump(
        include={"name", "description", "webhook_url", "allowed_scopes", "rate_limit_tier"}
    )
    async with write_context(request, admin, operation="admin.projects.register") as ctx:
        done = await registration.register(
            ctx.session,
            admin.uid,
            fields,
            project_id=None if payload.project_id is None else int(payload.project_id),
            redirect_uris=payload.redirect_uris,
            master_key=settings.master_key,
            master_key_id=settings.master_key_id,
        )
        attributes = RegisteredProjectAttributes.of(done)
        if payload.webhook_url is not None:
            made = await endpoints.register(
                ctx.session, done.project.project_id, payload.webhook_url, None,
                master_key=endpoints.MasterKey.of(settings),
            )  # fmt: skip
            attributes = RegisteredProjectAttributes(
                **attributes.model_dump(exclude_unset=True),
                webhook_endpoint_id=made.endpoint.id,
                webhook_secret=made.secret,
            )
        ctx.audit.project_id = done.project.project_id
        body = single("project", done.project.project_id, attributes)
        return ctx.respond(201, body, sealed=True)  # a retry replays the secrets, stored sealed


@router.put(
    "/admin/projects/{project_id}/status",
    response_model=One[StatusChangeAttributes],
    responses=ADMIN_PROBLEMS
    | problems(
        subject="project",
        s409="Transition not allowed from the current status (`invalid-state`)",
    ),
)
async def change_project_status(
    project_id: ProjectIdPath,
    payload: StatusChangeIn,
    admin: AdminCaller,
    request: Request,
    session: SessionDep,
) -> dict[str, Any]:
    """Move a project through its status machine, with a reason (administrator)."""
    project, record = await machine.change_status(
        session, project_id, payload.status, reason=payload.reason, changed_by=admin.uid
    )
    audit_action(
        session, actor_of(request, admin.uid), "admin.projects.status", project_id, None,
        payload.model_dump(), {"from_status": record.from_status, "status": record.status},
    )  # fmt: skip
    await session.commit()
    return single("project_status", project.project_id, StatusChangeAttributes.of(project, record))


class ProjectSettingsIn(BaseModel):
    """Any of the project's tier, amount limits and IP allow-list, with the reason (audited)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "rate_limit_tier": "standard",
                    "limits": {"transfer": {"MCC": {"per_operation": "100", "per_day": "1000"}}},
                    "ip_allowlist": ["203.0.113.0/24"],
                    "reason": "Partner contract signed",
                }
            ]
        },
    )

    rate_limit_tier: Tier | None = Field(
        None, description="free (100/min), standard (1000/min), enterprise (10000/min)"
    )
    limits: dict[str, Any] | None = Field(
        None,
        description="Replaces the overrides: {operation: {currency: {per_operation, per_day}}}, "
        "operations fund_lock/transfer/mining, currencies MCC/MCD, decimal strings of whole "
        "tokens; {} restores the defaults",
    )
    ip_allowlist: list[str] | None = Field(
        None, description="CIDR blocks (or addresses) allowed to call; [] = any address"
    )
    reason: str | None = Field(None, max_length=2000)

    @field_validator("limits")
    @classmethod
    def _limits(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else control.check_limits(value)

    @field_validator("ip_allowlist")
    @classmethod
    def _allowlist(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else control.check_allowlist(value)


def _one(project: Project) -> dict[str, Any]:
    return single("project", project.project_id, AdminProjectAttributes.of(project))


@router.get(
    "/admin/projects", response_model=Many[AdminProjectAttributes], responses=ADMIN_PROBLEMS
)
async def list_projects(
    admin: AdminCaller,
    session: SessionDep,
    paging: PageQuery,
    status: ProjectStatus | None = None,
    tier: Tier | None = None,
) -> dict[str, Any]:
    """Projects, newest first, filtered by status and rate-limit tier (administrator)."""
    rows, total = await page_of(
        session, control.projects(status, tier), control.NEWEST_FIRST, paging
    )
    items = [resource("project", p.project_id, AdminProjectAttributes.of(p)) for p in rows]
    return page(items, total, paging)


@router.get(
    "/admin/projects/{project_id}",
    response_model=One[AdminProjectAttributes],
    responses=ADMIN_PROBLEMS | problems(subject="project"),
)
async def get_project(
    project_id: ProjectIdPath, admin: AdminCaller, session: SessionDep
) -> dict[str, Any]:
    """One project: tier, limits, IP allow-list, status (administrator)."""
    return _one(await control.get(session, project_id))


@router.patch(
    "/admin/projects/{project_id}",
    response_model=One[AdminProjectAttributes],
    responses=ADMIN_PROBLEMS | problems(422, subject="project"),
)
async def update_project(
    project_id: ProjectIdPath,
    payload: ProjectSettingsIn,
    admin: AdminCaller,
    request: Request,
    session: SessionDep,
) -> dict[str, Any]:
    """Change a project's rate-limit tier, amount limits or IP allow-list (administrator);
    audited with the reason, in force from the next request."""
    changes = payload.model_dump(exclude_unset=True, exclude={"reason"})
    project = await control.change_settings(
        session, project_id, changes, reason=payload.reason, actor=actor_of(request, admin.uid)
    )
    await session.commit()
    await session.refresh(project)
    return _one(project)
