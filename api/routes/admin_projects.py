"""Administrators register projects and move them through the project status machine."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator

from access.scopes import PROJECT_SCOPES
from api.callers import ADMIN_PROBLEMS, AdminCaller, ProjectIdPath
from api.deps import SessionDep, SettingsDep
from api.envelope import single
from api.openapi import problems
from api.schemas.onboarding import RegisteredProjectAttributes, StatusChangeAttributes
from api.typed import One
from core.time import iso
from onboarding import registration
from onboarding import status as machine
from onboarding.clients import check_redirect_uris

router = APIRouter(tags=["projects"])

ProjectStatus = Literal["active", "maintenance", "testing", "discontinued", "deleted"]


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
    redirect_uris: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="OAuth redirect URIs of the project's client (the project can change them)",
    )

    @field_validator("redirect_uris")
    @classmethod
    def _redirects(cls, value: list[str]) -> list[str]:
        return check_redirect_uris(value)

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
    responses=ADMIN_PROBLEMS | problems(422, s409="The project_id is taken (`project-exists`)"),
)
async def register_project(
    payload: ProjectRegistrationIn, admin: AdminCaller, session: SessionDep, settings: SettingsDep
) -> Any:
    """Register a project directly (administrator); the api_secret is returned once."""
    fields = payload.model_dump(
        include={"name", "description", "webhook_url", "allowed_scopes", "rate_limit_tier"}
    )
    done = await registration.register(
        session,
        admin.uid,
        fields,
        project_id=None if payload.project_id is None else int(payload.project_id),
        redirect_uris=payload.redirect_uris,
        master_key=settings.master_key,
        master_key_id=settings.master_key_id,
    )
    await session.commit()
    await session.refresh(done.project)
    attributes = registration.registered_attributes(done)
    return JSONResponse(single("project", done.project.project_id, attributes), status_code=201)


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
    project_id: ProjectIdPath, payload: StatusChangeIn, admin: AdminCaller, session: SessionDep
) -> dict[str, Any]:
    """Move a project through its status machine, with a reason (administrator)."""
    project, record = await machine.change_status(
        session, project_id, payload.status, reason=payload.reason, changed_by=admin.uid
    )
    await session.commit()
    return single(
        "project_status",
        project.project_id,
        machine.project_attributes(project)
        | {"updated_at": iso(project.updated_at), "change": machine.record_attributes(record)},
    )
