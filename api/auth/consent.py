"""A project may act only on users who authorized it, and only within the scopes they granted
(decisions.md): a consent lists project scopes (``funds:manage``, ``funds:transfer``,
``transfer:write``, ``mining:write``, ...); consent to ``openid`` or ``profile`` alone grants
nothing over funds."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.principal import ProjectPrincipal
from core.errors import DomainError
from db.models.access import OAuthConsent

# Positive answers are remembered in-process this long (a DB round trip saved per write); a
# revoked consent therefore stops a project within this many seconds. Refusals are not cached.
CONSENT_CACHE_SECONDS = 5.0
_granted: dict[tuple[int, str], tuple[float, frozenset[str]]] = {}


def forget(project_id: int, uid: str) -> None:
    """Drop this process's cached grant (a revocation is then seen at once here)."""
    _granted.pop((project_id, uid), None)


async def granted_scopes(session: AsyncSession, project_id: int, uid: str) -> frozenset[str] | None:
    """The scopes ``uid`` granted ``project_id`` (None: no active consent)."""
    key = (project_id, uid)
    cached = _granted.get(key)
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]
    found = await session.scalar(
        select(OAuthConsent.scopes).where(
            OAuthConsent.user_uid == uid,
            OAuthConsent.project_id == project_id,
            OAuthConsent.revoked_at.is_(None),
        )
    )
    if found is None:
        return None
    if len(_granted) > 100_000:
        _granted.clear()
    scopes = frozenset(found)
    _granted[key] = (time.monotonic() + CONSENT_CACHE_SECONDS, scopes)
    return scopes


async def is_user_authorized(
    session: AsyncSession, project_id: int, uid: str, scope: str | None = None
) -> bool:
    scopes = await granted_scopes(session, project_id, uid)
    return scopes is not None and (scope is None or scope in scopes)


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
