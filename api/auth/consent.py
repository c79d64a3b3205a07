"""A project may act only on users who authorized it (decisions.md)."""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.principal import ProjectPrincipal
from api.errors import ProblemError
from db.models.access import OAuthConsent

# Positive answers are remembered in-process this long (a DB round trip saved per write); a
# revoked consent therefore stops a project within this many seconds. Refusals are not cached.
CONSENT_CACHE_SECONDS = 5.0
_granted: dict[tuple[int, str], float] = {}


async def is_user_authorized(session: AsyncSession, project_id: int, uid: str) -> bool:
    key = (project_id, uid)
    if _granted.get(key, 0.0) > time.monotonic():
        return True
    found = await session.scalar(
        select(OAuthConsent.id).where(
            OAuthConsent.user_uid == uid,
            OAuthConsent.project_id == project_id,
            OAuthConsent.revoked_at.is_(None),
        )
    )
    if found is None:
        return False
    if len(_granted) > 100_000:
        _granted.clear()
    _granted[key] = time.monotonic() + CONSENT_CACHE_SECONDS
    return True


async def require_user_authorized(
    session: AsyncSession, project: ProjectPrincipal | int, uid: str
) -> None:
    """403 ``user-not-authorized-for-project`` unless ``uid`` granted this project consent."""
    project_id = project if isinstance(project, int) else project.project_id
    if not await is_user_authorized(session, project_id, uid):
        raise ProblemError(
            f"User {uid} has not authorized project {project_id}",
            status=403,
            slug="user-not-authorized-for-project",
        )
