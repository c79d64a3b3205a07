"""The project status machine and what each status allows.

Transitions (spec): active <-> maintenance, active <-> testing, active -> discontinued ->
deleted. Nothing else.

What a status allows (our decision, docs/onboarding.md):

| status        | project's own calls | attribute reads | attribute writes | transactional |
|---------------|---------------------|-----------------|------------------|---------------|
| active        | yes                 | yes             | yes              | yes           |
| testing       | yes (flagged)       | yes             | yes              | yes           |
| maintenance   | yes                 | yes             | no               | no            |
| discontinued  | no (auth refuses)   | yes (by others) | no               | no            |
| deleted       | no                  | no              | no               | no            |
"""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.errors import InvalidState, NotFound
from db.models import Project
from db.models.onboarding import ProjectStatusRecord

TRANSITIONS: dict[str, frozenset[str]] = {
    "active": frozenset({"maintenance", "testing", "discontinued"}),
    "maintenance": frozenset({"active"}),
    "testing": frozenset({"active"}),
    "discontinued": frozenset({"deleted"}),
    "deleted": frozenset(),
}


class Capability(StrEnum):
    ATTRIBUTE_READ = "attribute_read"
    ATTRIBUTE_WRITE = "attribute_write"
    TRANSACT = "transact"


_ALL = frozenset(Capability)
ALLOWED: dict[str, frozenset[Capability]] = {
    "active": _ALL,
    "testing": _ALL,
    "maintenance": frozenset({Capability.ATTRIBUTE_READ}),
    "discontinued": frozenset({Capability.ATTRIBUTE_READ}),
    "deleted": frozenset(),
}

_WHAT = {
    Capability.ATTRIBUTE_READ: "attribute reads",
    Capability.ATTRIBUTE_WRITE: "attribute writes",
    Capability.TRANSACT: "transactional calls",
}


def allows(status: str, capability: Capability) -> bool:
    return capability in ALLOWED.get(status, frozenset())


def ensure_allows(project_id: int, status: str, capability: Capability) -> None:
    """409 ``invalid-state`` unless a project in ``status`` may do ``capability``."""
    if not allows(status, capability):
        raise InvalidState(
            f"Project {project_id} is {status}: {_WHAT[capability]} are not allowed",
            project_status=status,
        )


async def require_project_allows(
    session: AsyncSession, project_id: int, capability: Capability
) -> Project:
    """Load the project and check its status allows ``capability`` (for any route; e.g.
    transactional routes call it with ``Capability.TRANSACT``)."""
    project = await session.get(Project, project_id)
    if project is None:
        raise NotFound(f"Project {project_id} does not exist")
    ensure_allows(project_id, project.status, capability)
    return project


def ensure_transition(project_id: int, current: str, target: str) -> None:
    if target not in TRANSITIONS.get(current, frozenset()):
        allowed = ", ".join(sorted(TRANSITIONS.get(current, ()))) or "none"
        raise InvalidState(
            f"Project {project_id} cannot go from {current} to {target} (allowed: {allowed})",
            current_status=current,
        )


async def change_status(
    session: AsyncSession, project_id: int, target: str, *, reason: str | None, changed_by: str
) -> tuple[Project, ProjectStatusRecord]:
    """Move a project to ``target`` (row locked) and record it; flush only."""
    project = await session.get(Project, project_id, with_for_update=True)
    if project is None:
        raise NotFound(f"Project {project_id} does not exist")
    ensure_transition(project_id, project.status, target)
    record = ProjectStatusRecord(
        project_id=project_id,
        from_status=project.status,
        status=target,
        reason=reason,
        changed_by=changed_by,
    )
    project.status = target
    session.add(record)
    await session.flush()
    await session.refresh(project)
    await session.refresh(record)
    return project, record


async def history(
    session: AsyncSession, project_id: int, limit: int = 50
) -> list[ProjectStatusRecord]:
    rows = await session.scalars(
        select(ProjectStatusRecord)
        .where(ProjectStatusRecord.project_id == project_id)
        .order_by(ProjectStatusRecord.created_at.desc(), ProjectStatusRecord.id.desc())
        .limit(limit)
    )
    return list(rows)
