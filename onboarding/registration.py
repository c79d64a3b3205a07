"""Projects registered directly by an administrator (no application): flush-only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from core.errors import DomainError
from db.models import Project
from db.models.access import OAuthClient
from db.models.onboarding import ProjectStatusRecord
from onboarding.applications import NewCredentials, new_credentials
from onboarding.clients import ensure_project_client


class ProjectExists(DomainError):
    status, slug = 409, "project-exists"


@dataclass(frozen=True)
class Registered:
    project: Project
    credentials: NewCredentials  # the api_secret in clear: shown once, by the caller
    client: OAuthClient


async def register(
    session: AsyncSession,
    admin_uid: str,
    fields: dict[str, Any],
    *,
    project_id: int | None,
    redirect_uris: list[str],
    master_key: str,
    master_key_id: str,
) -> Registered:
    """A new active project with fresh credentials, its status record and OAuth client."""
    creds = new_credentials(master_key, master_key_id)
    project = Project(
        **fields,
        ip_allowlist=[],
        limits={},
        api_key=creds.api_key,
        api_secret_hash=creds.api_secret_hash,
        api_secret_encrypted=creds.api_secret_encrypted,
    )
    if project_id is not None:
        project.project_id = project_id
    try:
        async with session.begin_nested():  # a savepoint: the caller's transaction survives
            session.add(project)
    except IntegrityError as exc:
        raise ProjectExists(f"Project {project_id} already exists") from exc
    if project_id is not None:
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
            changed_by=admin_uid,
        )
    )
    client = await ensure_project_client(session, project, redirect_uris)
    await session.flush()
    return Registered(project, creds, client)
