"""Public project information, and its owner's roll of the api_secret (served under ``/v1``
only: ``/api/open`` carries the application and admin endpoints, spec "Projects and
whitelist")."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from api.callers import FRESH_401, PUBLIC, FreshDeveloper, ProjectIdPath, actor_of
from api.deps import SessionDep, SettingsDep
from api.envelope import single
from api.openapi import problems
from api.schemas.inputs import DEFAULT_OVERLAP_SECONDS, ExpirePrevious
from api.schemas.onboarding import ApiSecretAttributes, ProjectStatusAttributes
from api.typed import One
from core.errors import NotFound
from core.time import iso
from db.models import Project
from onboarding import control
from onboarding import status as machine

router = APIRouter(prefix="/v1/projects", tags=["projects"])


@router.get(
    "/{project_id}/status",
    response_model=One[ProjectStatusAttributes],
    responses=problems(subject="project"),
    dependencies=[Depends(PUBLIC)],
)
async def project_status(project_id: ProjectIdPath, session: SessionDep) -> dict[str, Any]:
    """Current status of a project, what it allows, and its latest changes (public)."""
    project = await session.get(Project, project_id)
    if project is None:
        raise NotFound(f"Project {project_id} does not exist")
    history = await machine.history(session, project_id, limit=20)
    allows = sorted(c.value for c in machine.ALLOWED.get(project.status, ()))
    attributes = ProjectStatusAttributes.of(project, allows, history)
    return single("project_status", project.project_id, attributes)


class RollIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expire_previous_in_seconds: ExpirePrevious = DEFAULT_OVERLAP_SECONDS
    reason: str | None = Field(None, max_length=2000)


@router.post(
    "/{project_id}/api-secret/roll",
    response_model=One[ApiSecretAttributes],
    responses=problems(
        429,
        s401=FRESH_401,
        s403="Not a token of the gateway's own sign-in (`first-party-required`), or neither "
        "the project's owner nor an administrator (`forbidden`)",
        subject="project",
    ),
)
async def roll_api_secret(
    project_id: ProjectIdPath,
    user: FreshDeveloper,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    payload: RollIn | None = None,
) -> Any:
    """Roll the project's api_secret (its owner or an administrator, signed in to the gateway
    itself within FRESH_SIGNIN_SECONDS, else 401 `fresh-sign-in-required`): the new secret is
    shown once; the previous one works for
    `expire_previous_in_seconds` (default 24 h)."""
    body = payload or RollIn()
    project = await control.get(session, project_id)
    control.ensure_owner_or_admin(project, user.uid, user.is_admin)
    rolled = await control.roll_api_secret(
        session,
        project_id,
        body.expire_previous_in_seconds,
        actor=actor_of(request, user.uid, "admin" if user.is_admin else "owner"),
        master_key=settings.master_key,
        master_key_id=settings.master_key_id,
        reason=body.reason,
    )
    await session.commit()
    attrs = ApiSecretAttributes(
        project_id=str(project_id),
        api_key=rolled.project.api_key,
        api_secret=rolled.api_secret,
        previous_expires_at=iso(rolled.previous_expires_at),
        rolled_at=iso(datetime.now(UTC)),
    )
    response = JSONResponse(single("api_secret", project_id, attrs))
    response.headers["Cache-Control"] = "no-store"
    return response
