"""The callers that several route modules declare, each written once: who may call, and
with which scope (FastAPI reads the scopes off ``Security`` and documents them). Each alias is
spelled out rather than built by a function, since mypy accepts only static type aliases."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Request, Security
from fastapi.responses import JSONResponse
from fastapi.security import SecurityScopes
from pydantic import BaseModel

from access.consent import is_user_authorized
from access.ratelimit import client_ip
from api.auth.deps import (
    current_project,
    current_user,
    id_token_user,
    oauth2_scheme,
    project_id_header,
)
from api.auth.principal import ProjectPrincipal, UserPrincipal
from api.deps import GatewayDep, SessionDep
from api.openapi import problems
from api.operations import OperatorCall
from core.errors import DomainError
from core.logging import request_id_var
from events.audit import Actor


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


async def withdrawing_user(
    user: Annotated[UserPrincipal, Security(current_user, scopes=["funds:withdraw"])],
    request: Request,
) -> UserPrincipal:
    """The withdrawals routes' caller: the user's own access token holding ``funds:withdraw``,
    of the gateway's own (first-party) client, or of a project's client whose consent, still
    active, holds ``funds:withdraw`` (403 ``user-not-authorized-for-project`` otherwise). A
    project's own credentials never reach a user's money out. The principal returned names
    the project the withdrawal is made for (None: the gateway's own client)."""
    if user.first_party:  # the gateway's own client acts for no project
        return replace(user, project_id=None)
    if user.project_id is None:
        raise DomainError(
            "This call needs a user's token of the gateway or of a project's app",
            status=403, slug="insufficient-scope", required_scope="funds:withdraw",
        )  # fmt: skip
    if user.project_id is not None:
        async with request.app.state.session_maker() as session:
            granted = await is_user_authorized(session, user.project_id, user.uid, "funds:withdraw")
        if not granted:
            raise DomainError(
                f"You have not authorized project {user.project_id} to withdraw for you",
                status=403, slug="user-not-authorized-for-project",
                required_scope="funds:withdraw",
            )  # fmt: skip
    return user


Withdrawer = Annotated[UserPrincipal, Depends(withdrawing_user)]

# A project id path parameter: a positive BIGINT (larger values are a 422, not a DB error).
ProjectIdPath = Annotated[int, Path(ge=1, le=2**63 - 1, examples=[1000])]


async def admin_user(request: Request, token: str | None = Depends(oauth2_scheme)) -> UserPrincipal:
    """A bearer token of a user with role ``admin`` (403 ``admin-required`` otherwise): the
    onboarding, whitelist and project administration routes."""
    principal = await current_user(SecurityScopes([]), request, token)
    if not principal.is_admin:
        raise DomainError(
            "This call is for administrators (role admin)", status=403, slug="admin-required"
        )
    return principal


AdminCaller = Annotated[UserPrincipal, Depends(admin_user)]


async def operator_call(
    request: Request, admin: Admin, session: SessionDep, gateway: GatewayDep
) -> OperatorCall:
    """An administrator's action on transfers or withdrawals (``api.operations``)."""
    return OperatorCall(request, session, gateway, actor_of(request, admin.uid))


AdminOperation = Annotated[OperatorCall, Depends(operator_call)]
ADMIN_PROBLEMS = problems(429, caller="admin")
# A developer's ID token (an access token of this API is accepted as well): applications and
# the owner's key roll.
Developer = Annotated[UserPrincipal, Depends(id_token_user)]


def actor_of(request: Request, uid: str, role: str = "admin") -> Actor:
    """Who acts and from where: the audit row of an administrator's (or owner's) action, from
    the admin API and the console alike (events.audit.audit_action)."""
    return Actor(uid, client_ip(request.scope), request_id_var.get(), role)


async def mining_reader(
    request: Request,
    token: str | None = Depends(oauth2_scheme),
    project_id: str | None = Depends(project_id_header),
) -> UserPrincipal | ProjectPrincipal:
    """A project (X-Project-ID + credentials) or a user bearer token, with mining:read."""
    scopes = SecurityScopes(["mining:read"])
    if project_id:
        return await current_project(scopes, request, project_id, None, None)
    return await current_user(scopes, request, token)


MiningReader = Annotated[UserPrincipal | ProjectPrincipal, Depends(mining_reader)]


# ------------------------------------------------------------------ legacy routes' caller
# The legacy reference routes take the identity provider's ID token and answer a 401 with
# their own body, ``{"error": "unauthorized", "message": ..., "code": 401}``.


class LegacyError(BaseModel):
    """The legacy error body (not a problem document): ``{error, message, code}``."""

    error: str
    message: str
    code: int


# The legacy routes' own 401 body; other refusals are problems like everywhere else.
LEGACY_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"model": LegacyError, "description": "`{error: unauthorized, message, code: 401}`"},
    **problems(500),
}


class LegacyUnauthorized(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def _on_legacy(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LegacyUnauthorized)
    return JSONResponse(
        {"error": "unauthorized", "message": exc.message, "code": 401},
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )


def install_legacy(app: FastAPI) -> None:
    app.add_exception_handler(LegacyUnauthorized, _on_legacy)


async def legacy_user(
    request: Request, token: str | None = Depends(oauth2_scheme)
) -> UserPrincipal:
    try:
        return await id_token_user(request, token)
    except DomainError as exc:
        if exc.status == 401:
            raise LegacyUnauthorized(exc.detail) from exc
        raise


LegacyUser = Annotated[UserPrincipal, Depends(legacy_user)]
