"""The API's answer to a missing consent: 403 ``user-not-authorized-for-project``. The rule
itself is ``access.consent`` (written once, for every caller)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from access.consent import is_user_authorized
from api.auth.principal import ProjectPrincipal
from core.errors import DomainError


async def require_user_authorized(
    session: AsyncSession, project: ProjectPrincipal | int, uid: str, scope: str | None = None
) -> None:
    """403 ``user-not-authorized-for-project`` unless ``uid`` granted this project consent
    (including ``scope``, when the call acts on the user's funds or mining)."""
    project_id = project if isinstance(project, int) else project.project_id
    if not await is_user_authorized(session, project_id, uid, scope):
        extra: dict[str, Any] = {"required_scope": scope} if scope else {}
        need = f" (scope {scope})" if scope else ""
        raise DomainError(
            f"User {uid} has not authorized project {project_id}{need}",
            status=403,
            slug="user-not-authorized-for-project",
            **extra,
        )
