"""Public project information."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.callers import ProjectIdPath
from api.deps import SessionDep
from api.envelope import single
from api.openapi import problems
from api.schemas.onboarding import ProjectStatusAttributes
from api.typed import One
from core.errors import NotFound
from db.models import Project
from onboarding import status as machine

router = APIRouter(prefix="/v1/projects", tags=["projects"])


@router.get(
    "/{project_id}/status",
    response_model=One[ProjectStatusAttributes],
    responses=problems(subject="project"),
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
