"""Public project information."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import SessionDep
from api.envelope import single
from api.errors import NotFound
from db.models import Project

router = APIRouter(prefix="/v1/projects", tags=["projects"])


@router.get("/{project_id}/status")
async def project_status(project_id: int, session: SessionDep) -> dict[str, Any]:
    """Current status of a project (public)."""
    project = await session.get(Project, project_id)
    if project is None:
        raise NotFound(f"Project {project_id} does not exist")
    return single(
        "project_status",
        project.project_id,
        {
            "project_id": str(project.project_id),
            "name": project.name,
            "status": project.status,
            "updated_at": project.updated_at.isoformat(),
        },
    )
