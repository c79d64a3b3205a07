"""The listings of onboarding, shared by the admin API and the operator console: one statement
per list, with the filters either caller offers (a status, a search term)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Select, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from core.errors import NotFound
from db.models import Project
from db.models.onboarding import McdWhitelistEntry, ProjectApplication


def like(text: str) -> str:
    """An ILIKE pattern matching ``text`` literally anywhere."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def applications(status: str = "all", q: str = "", developer_uid: str | None = None) -> Select[Any]:
    """Applications by status ("all": any), project name or e-mail, or of one developer."""
    statement = select(ProjectApplication)
    if status != "all":
        statement = statement.where(ProjectApplication.status == status)
    if developer_uid is not None:
        statement = statement.where(ProjectApplication.developer_uid == developer_uid)
    if q.strip():
        pattern = like(q.strip())
        statement = statement.where(
            or_(
                ProjectApplication.project_name.ilike(pattern),
                ProjectApplication.developer_email.ilike(pattern),
            )
        )
    return statement


NEWEST_APPLICATIONS_FIRST = [ProjectApplication.created_at.desc()]


async def application(
    session: AsyncSession, application_id: uuid.UUID, developer_uid: str | None = None
) -> ProjectApplication:
    """One application (of that developer, when given); NotFound otherwise."""
    row = await session.get(ProjectApplication, application_id, populate_existing=True)
    if row is None or (developer_uid is not None and row.developer_uid != developer_uid):
        raise NotFound(f"Application {application_id} does not exist")
    return row


def whitelist(status: str = "current", q: str = "") -> Select[Any]:
    """Whitelist entries: "current" (not removed), one status, or "all"; by name or wallet."""
    statement = select(McdWhitelistEntry)
    if status == "current":
        statement = statement.where(McdWhitelistEntry.status != "removed")
    elif status != "all":
        statement = statement.where(McdWhitelistEntry.status == status)
    if q.strip():
        statement = statement.where(
            or_(
                McdWhitelistEntry.project_name.ilike(like(q.strip())),
                McdWhitelistEntry.wallet_address == q.strip(),
            )
        )
    return statement


def projects(status: str = "all", q: str = "") -> Select[Any]:
    """Projects by status ("all": any), name or id."""
    statement = select(Project)
    if status != "all":
        statement = statement.where(Project.status == status)
    if q.strip():
        term = q.strip()
        clauses: list[Any] = [Project.name.ilike(like(term))]
        if term.isascii() and term.isdecimal():
            clauses.append(Project.project_id == int(term))
        statement = statement.where(or_(*clauses))
    return statement


async def approvals_of(session: AsyncSession, project_ids: list[int]) -> dict[int, uuid.UUID]:
    """The application id each project came from (projects registered directly have none)."""
    rows = await session.execute(
        select(ProjectApplication.project_id, ProjectApplication.id).where(
            ProjectApplication.project_id.in_(project_ids)
        )
    )
    return {pid: aid for pid, aid in rows.all() if pid is not None}


async def application_of(session: AsyncSession, project_id: int) -> ProjectApplication | None:
    return await session.scalar(
        select(ProjectApplication).where(ProjectApplication.project_id == project_id)
    )
