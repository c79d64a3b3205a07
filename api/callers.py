"""The callers that several route modules declare, each written once (the declaration is
``api.auth.declaration.Callers``, the kinds and the audience rule ``access.callers``): who may
call, and with which scope. Each alias is spelled out rather than built by a function, since
mypy accepts only static type aliases."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from access.callers import admin, anyone, developer, project, user
from access.consent import is_user_authorized
from access.fresh import require_fresh_signin
from access.ratelimit import client_ip
from api.auth.declaration import Callers
from api.auth.principal import ProjectPrincipal, UserPrincipal
from api.deps import GatewayDep, SessionDep
from api.openapi import problems
from api.operations import OperatorCall
from core.errors import DomainError
from core.logging import request_id_var
from events.audit import Actor

# A public route: ``dependencies=[Depends(PUBLIC)]`` (nothing is read; counted by source).
PUBLIC = Callers(anyone())

# A first-party administrator (403 ``admin-required`` for anyone else): the onboarding,
# whitelist, project, organization and transfer administration routes.
Admin = Annotated[UserPrincipal, Depends(Callers(admin()))]
AdminCaller = Admin
ADMIN_PROBLEMS = problems(429, caller="admin")
ProjectCaller = Annotated[ProjectPrincipal, Depends(Callers(project()))]
UserRead = Annotated[UserPrincipal, Depends(Callers(user("user:read")))]
UserWrite = Annotated[UserPrincipal, Depends(Callers(user("user:write")))]
OrgRead = Annotated[UserPrincipal, Depends(Callers(user("org:read")))]
McdRead = Annotated[UserPrincipal, Depends(Callers(user("mcd:read")))]
# The person themself, through the gateway's own sign-in (an access or ID token of its
# first-party client): applications, and the owner's operations on their projects. A token a
# project's client holds for them is never one (issue 38, H1).
Developer = Annotated[UserPrincipal, Depends(Callers(developer()))]
FRESH_401 = (
    "Missing or invalid token (`unauthorized`), or a sign-in older than FRESH_SIGNIN_SECONDS "
    "(`fresh-sign-in-required`: sign in again and repeat the call)"
)


async def fresh_developer(principal: Developer, request: Request) -> UserPrincipal:
    """The person themself (``Developer``), signed in within FRESH_SIGNIN_SECONDS: the sensitive
    owner's and administrator's actions (secret rolls). The rule is ``access.fresh``'s."""
    seconds = request.app.state.settings.fresh_signin_seconds
    require_fresh_signin(principal, seconds, action="This action (a secret roll)")
    return principal


# ``Developer`` for a sensitive action: 401 ``fresh-sign-in-required`` past the age (issue 44).
FreshDeveloper = Annotated[UserPrincipal, Depends(fresh_developer)]


async def withdrawing_user(
    principal: Annotated[UserPrincipal, Depends(Callers(user("funds:withdraw")))],
    request: Request,
) -> UserPrincipal:
    """The withdrawals routes' caller: the user's own access token holding ``funds:withdraw``,
    of the gateway's own (first-party) client, or of a project's client whose consent, still
    active, holds ``funds:withdraw`` (403 ``user-not-authorized-for-project`` otherwise). A
    project's own credentials never reach a user's money out. The principal returned names
    the project the withdrawal is made for (None: the gateway's own client)."""
    if principal.first_party:  # the gateway's own client acts for no project
        return replace(principal, project_id=None)
    project_id = principal.project_id
    if project_id is None:
        raise DomainError(
            "This call needs a user's token of the gateway or of a project's app",
            status=403, slug="insufficient-scope", required_scope="funds:withdraw",
        )  # fmt: skip
    async with request.app.state.session_maker() as session:
        granted = await is_user_authorized(session, project_id, principal.uid, "funds:withdraw")
    if not granted:
        raise DomainError(
            f"You have not authorized project {project_id} to withdraw for you",
            status=403, slug="user-not-authorized-for-project",
            required_scope="funds:withdraw",
        )  # fmt: skip
    return principal


Withdrawer = Annotated[UserPrincipal, Depends(withdrawing_user)]

# A project id path parameter: a positive BIGINT (larger values are a 422, not a DB error).
ProjectIdPath = Annotated[int, Path(ge=1, le=2**63 - 1, examples=[1000])]


async def operator_call(
    request: Request, admin: Admin, session: SessionDep, gateway: GatewayDep
) -> OperatorCall:
    """An administrator's action on transfers or withdrawals (``api.operations``)."""
    return OperatorCall(request, session, gateway, actor_of(request, admin.uid))


AdminOperation = Annotated[OperatorCall, Depends(operator_call)]


def actor_of(request: Request, uid: str, role: str = "admin") -> Actor:
    """Who acts and from where: the audit row of an administrator's (or owner's) action, from
    the admin API and the console alike (events.audit.audit_action)."""
    return Actor(uid, client_ip(request.scope), request_id_var.get(), role)


# A project (X-Project-ID + credentials) or a user's token, either with mining:read.
MiningReader = Annotated[
    UserPrincipal | ProjectPrincipal,
    Depends(Callers(user("mining:read"), project("mining:read"))),
]


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
    **problems(
        500,
        s403="The token's client was not granted the route's scope (`insufficient-scope`)",
    ),
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


class LegacyCallers(Callers):
    """A legacy route's declaration: its 401 in the legacy body."""

    async def __call__(self, request: Request, **credentials: str | None) -> Any:  # type: ignore[override]
        try:
            return await super().__call__(request, **credentials)
        except DomainError as exc:
            if exc.status == 401:
                raise LegacyUnauthorized(exc.detail) from exc
            raise
