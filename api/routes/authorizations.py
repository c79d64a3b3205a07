"""A user's authorizations (consent grants): which projects may act on them, with which
scopes, and the way to withdraw one (decisions.md: users list and revoke their grants)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from access.consent import consent_clause, forget
from api.auth.principal import UserPrincipal
from api.callers import UserRead, UserWrite
from api.deps import SessionDep
from api.envelope import meta as envelope_meta
from api.envelope import resource, single
from api.idempotency import write_context
from api.openapi import problems
from api.typed import Attributes, Listing, One
from authserver.server import AuthServer
from core.errors import NotFound
from core.time import iso
from db.models import Project
from db.models.access import OAuthConsent

router = APIRouter(prefix="/v1/users/me/authorizations", tags=["users"])

ProjectId = Annotated[int, Path(ge=1, le=2**63 - 1, examples=[1000])]


class AuthorizationAttributes(Attributes):
    project_id: str
    project_name: str | None
    scopes: list[str]
    source: str
    granted_at: str
    updated_at: str
    revoked_at: str | None


def _grant(consent: OAuthConsent, project_name: str | None) -> dict[str, Any]:
    return resource(
        "authorization",
        consent.project_id,
        {
            "project_id": str(consent.project_id),
            "project_name": project_name,
            "scopes": sorted(consent.scopes),
            "source": consent.source,
            "granted_at": iso(consent.created_at),
            "updated_at": iso(consent.updated_at),
            "revoked_at": iso(consent.revoked_at),
        },
    )


def _visible(user: UserPrincipal) -> int | None:
    """Which grants the token may see and withdraw: all of them with a token of the gateway's
    own (first-party) client; otherwise only the grant of the project whose client holds the
    token (-1, none, for a token of no project). A project never sees or revokes the user's
    grants to other projects (issue 31, L5)."""
    if user.first_party:
        return None
    return user.project_id if user.project_id is not None else -1


@router.get("", response_model=Listing[AuthorizationAttributes], responses=problems(401, 403, 429))
async def list_authorizations(user: UserRead, session: SessionDep) -> dict[str, Any]:
    """The projects the current user has authorized, with the scopes granted to each (a
    project's token sees its own grant only)."""
    rows = (
        await session.execute(
            select(OAuthConsent, Project.name)
            .join(Project, Project.project_id == OAuthConsent.project_id)
            .where(consent_clause(_visible(user), user.uid))
            .order_by(OAuthConsent.project_id)
        )
    ).all()
    items = [_grant(consent, name) for consent, name in rows]
    return {"data": items, "meta": envelope_meta(total=len(items))}


@router.delete(
    "/{project_id}",
    response_model=One[AuthorizationAttributes],
    responses=problems(
        401, 403, 422, 429, s404="No active authorization this token may see (`not-found`)"
    ),
)
async def revoke_authorization(project_id: ProjectId, user: UserWrite, request: Request) -> Any:
    """Withdraw the current user's authorization of a project (its tokens for the user die).
    A project's token sees its own grant only: any other is not found for it."""
    if _visible(user) not in (None, project_id):
        # As in the listing, another project's grant does not exist for this token (404, so
        # a project cannot learn whether the user authorized a competitor either).
        raise NotFound(
            f"Project {project_id} is not authorized by this user, as far as this token sees "
            "(a project's token withdraws its own authorization; use the gateway's own "
            "sign-in for the others)"
        )
    async with write_context(
        request, user, operation="users.authorization.revoke", user_uid=user.uid
    ) as ctx:
        consent = await ctx.session.scalar(
            select(OAuthConsent).where(consent_clause(project_id, user.uid)).with_for_update()
        )
        if consent is None:
            raise NotFound(f"Project {project_id} is not authorized by this user")
        consent.revoked_at = datetime.now(UTC)
        await ctx.session.flush()
        await ctx.session.refresh(consent)
        name = await ctx.session.scalar(
            select(Project.name).where(Project.project_id == project_id)
        )
        grant = _grant(consent, name)
        response = ctx.respond(200, single(grant["type"], grant["id"], grant["attributes"]))
    forget(project_id, user.uid)
    server: AuthServer = request.app.state.auth_server
    await run_in_threadpool(server.store.revoke_user_project, user.uid, project_id)
    return response
