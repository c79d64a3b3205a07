"""Administrators register projects and move them through the project status machine."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from api.deps import SessionDep, SettingsDep
from api.envelope import Envelope, single
from api.routes.onboarding import ADMIN_PROBLEMS, AdminCaller, ProjectIdPath
from core.errors import DomainError
from core.scopes import PROJECT_SCOPES
from db.models import Project
from db.models.onboarding import ProjectStatusRecord
from onboarding import status as machine
from onboarding.applications import new_credentials
from onboarding.clients import check_redirect_uris, client_attributes, ensure_project_client

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
    response_model=Envelope,
    responses={
        **ADMIN_PROBLEMS,
        409: {"description": "The project_id is taken (`project-exists`)"},
        422: {"description": "Invalid field (`validation-error`)"},
    },
)
async def register_project(
    payload: ProjectRegistrationIn, admin: AdminCaller, session: SessionDep, settings: SettingsDep
) -> Any:
    """Register a project directly (administrator); the api_secret is returned once."""
    creds = new_credentials(settings.master_key, settings.master_key_id)
    values: dict[str, Any] = {
        "name": payload.name,
        "description": payload.description,
        "webhook_url": payload.webhook_url,
        "allowed_scopes": payload.allowed_scopes,
        "rate_limit_tier": payload.rate_limit_tier,
        "ip_allowlist": [],
        "limits": {},
        "api_key": creds.api_key,
        "api_secret_hash": creds.api_secret_hash,
        "api_secret_encrypted": creds.api_secret_encrypted,
    }
    if payload.project_id is not None:
        values["project_id"] = int(payload.project_id)
    project = Project(**values)
    session.add(project)
    try:
        await session.flush()
    except IntegrityError as exc:
        await session.rollback()
        raise DomainError(
            f"Project {payload.project_id} already exists", status=409, slug="project-exists"
        ) from exc
    if payload.project_id is not None:
        # Keep the identity ahead of explicit ids, so a later default id never collides.
        await session.execute(
            text(
                "SELECT setval(pg_get_serial_sequence('projects', 'project_id'), "
                "GREATEST((SELECT max(project_id) FROM projects), 1000))"
            )
        )
    session.add(
        ProjectStatusRecord(
            project_id=project.project_id,
            from_status=None,
            status="active",
            reason="registered by an administrator",
            changed_by=admin.uid,
        )
    )
    client = await ensure_project_client(session, project, payload.redirect_uris)
    client_attrs = client_attributes(client)
    await session.commit()
    await session.refresh(project)
    attributes = {
        "project_id": str(project.project_id),
        "name": project.name,
        "description": project.description,
        "webhook_url": project.webhook_url,
        "allowed_scopes": project.allowed_scopes,
        "rate_limit_tier": project.rate_limit_tier,
        "status": project.status,
        "api_key": creds.api_key,
        "api_secret": creds.api_secret,
        "created_at": project.created_at.isoformat(),
        **client_attrs,
    }
    return JSONResponse(single("project", project.project_id, attributes), status_code=201)


@router.put(
    "/admin/projects/{project_id}/status",
    response_model=Envelope,
    responses={
        **ADMIN_PROBLEMS,
        404: {"description": "No such project"},
        409: {"description": "Transition not allowed from the current status (`invalid-state`)"},
    },
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
        {
            "project_id": str(project.project_id),
            "name": project.name,
            "status": project.status,
            "updated_at": project.updated_at.isoformat(),
            "change": machine.record_attributes(record),
        },
    )
