"""The callers that several route modules declare, each written once: who may call, and
with which scope (FastAPI reads the scopes off ``Security`` and documents them). Each alias is
spelled out rather than built by a function, since mypy accepts only static type aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Security

from api.auth.deps import current_project, current_user
from api.auth.principal import ProjectPrincipal, UserPrincipal
from core.errors import DomainError


async def require_admin(
    user: Annotated[UserPrincipal, Security(current_user)],
) -> UserPrincipal:
    if not user.is_admin:
        raise DomainError("This endpoint is for administrators", status=403, slug="admin-required")
    return user


Admin = Annotated[UserPrincipal, Security(require_admin)]
ProjectCaller = Annotated[ProjectPrincipal, Security(current_project)]
UserRead = Annotated[UserPrincipal, Security(current_user, scopes=["user:read"])]
UserWrite = Annotated[UserPrincipal, Security(current_user, scopes=["user:write"])]
OrgRead = Annotated[UserPrincipal, Security(current_user, scopes=["org:read"])]
McdRead = Annotated[UserPrincipal, Security(current_user, scopes=["mcd:read"])]
