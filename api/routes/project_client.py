"""A project's own OAuth client: the project reads it with its credentials; its owner (or an
administrator) sets its redirect URIs and rolls its secret with the gateway's own sign-in
(decisions.md: every approved or registered project gets a client). The owner's operations
never take the project's key: a stolen API secret must not point the project's sign-in at
another site (issue 38)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, Field

from api.auth.principal import UserPrincipal
from api.callers import FRESH_401, Developer, FreshDeveloper, ProjectCaller, ProjectIdPath
from api.deps import SessionDep
from api.envelope import single
from api.errors import invalid_field
from api.idempotency import IdempotencyKey, WriteContext, write_context
from api.openapi import problems
from api.schemas.inputs import KeyedSecretRoll, RedirectUris
from api.schemas.onboarding import OAuthClientAttributes
from api.typed import Attributes, One
from api.versions import deprecated
from core.errors import NotFound
from core.time import iso
from db.models.access import OAuthClient
from onboarding import control
from onboarding.clients import (
    ensure_project_client,
    project_client,
    roll_client_secret,
)

router = APIRouter(prefix="/v1/projects", tags=["projects"])


_PROBLEMS = problems(429, caller="project")
_S403 = (
    "Not a token of the gateway's own sign-in (`first-party-required`), or neither the "
    "project's owner nor an administrator (`forbidden`)"
)
_OWNER_PROBLEMS = problems(
    429, s401="Missing or invalid token (`unauthorized`)", s403=_S403, subject="project"
)
# A secret roll needs a fresh sign-in too (issue 44).
_ROLL_PROBLEMS = problems(409, 422, 429, s401=FRESH_401, s403=_S403, subject="project")


class RedirectUrisIn(BaseModel):
    redirect_uris: RedirectUris = Field(
        examples=[["https://app.example/callback", "http://localhost:3000/callback"]],
        description="Absolute https URLs (http only on localhost); replaces the list",
    )
    idempotency_key: IdempotencyKey = None


@router.get(
    "/oauth-client",
    response_model=One[OAuthClientAttributes],
    responses=_PROBLEMS | problems(subject="OAuth client"),
)
async def get_client(project: ProjectCaller, session: SessionDep) -> dict[str, Any]:
    """The calling project's OAuth client (id, redirect URIs, scopes users may grant)."""
    client = await project_client(session, project.project_id)
    if client is None:
        raise NotFound(f"Project {project.project_id} has no OAuth client")
    return single("oauth_client", client.client_id, OAuthClientAttributes.of(client))


async def _owned_client(ctx: WriteContext, project_id: int, user: UserPrincipal) -> OAuthClient:
    """The project's client (created if missing), for its owner or an administrator."""
    row = await control.get(ctx.session, project_id)
    control.ensure_owner_or_admin(row, user.uid, user.is_admin)
    ctx.audit.project_id = project_id
    return await ensure_project_client(ctx.session, row)


@router.get(
    "/{project_id}/oauth-client",
    response_model=One[OAuthClientAttributes],
    responses=_OWNER_PROBLEMS,
)
async def get_owned_client(
    project_id: ProjectIdPath, user: Developer, session: SessionDep
) -> dict[str, Any]:
    """A project's OAuth client (its owner or an administrator, signed in to the gateway)."""
    row = await control.get(session, project_id)
    control.ensure_owner_or_admin(row, user.uid, user.is_admin)
    client = await project_client(session, project_id)
    if client is None:
        raise NotFound(f"Project {project_id} has no OAuth client")
    return single("oauth_client", client.client_id, OAuthClientAttributes.of(client))


@router.put(
    "/{project_id}/oauth-client",
    response_model=One[OAuthClientAttributes],
    responses=_OWNER_PROBLEMS | problems(409, 422),
)
async def set_redirect_uris(
    project_id: ProjectIdPath, payload: RedirectUrisIn, user: Developer, request: Request
) -> Any:
    """Set the redirect URIs of a project's OAuth client (its owner or an administrator,
    signed in to the gateway itself; created if missing)."""
    async with write_context(
        request, user, operation="projects.oauth_client.update", user_uid=user.uid
    ) as ctx:
        client = await _owned_client(ctx, project_id, user)
        client.redirect_uris = payload.redirect_uris
        await ctx.session.flush()
        return ctx.respond(
            200, single("oauth_client", client.client_id, OAuthClientAttributes.of(client))
        )


class ClientSecretRollIn(KeyedSecretRoll):
    pass


class OAuthClientSecretAttributes(Attributes):
    """The answer of a client secret roll: the new client secret, shown once."""

    oauth_client_id: str
    client_type: str
    client_secret: str = Field(description="The new client secret, shown once")
    previous_expires_at: str | None
    rolled_at: str


@router.post(
    "/{project_id}/oauth-client/secret/roll",
    response_model=One[OAuthClientSecretAttributes],
    responses=_ROLL_PROBLEMS,
)
async def roll_secret(
    project_id: ProjectIdPath, payload: ClientSecretRollIn, user: FreshDeveloper, request: Request
) -> Any:
    """Roll the secret of a project's OAuth client (its owner or an administrator, signed in
    to the gateway itself within FRESH_SIGNIN_SECONDS, else 401 `fresh-sign-in-required`): the
    new one is shown once, the previous one works for
    `expire_previous_in_seconds` (default 24 h); a public client becomes confidential."""
    async with write_context(
        request, user, operation="projects.oauth_client.secret.roll", user_uid=user.uid
    ) as ctx:
        client = await _owned_client(ctx, project_id, user)
        rolled = roll_client_secret(client, payload.expire_previous_in_seconds)
        await ctx.session.flush()
        attrs = OAuthClientSecretAttributes(
            oauth_client_id=client.client_id,
            client_type="confidential",
            client_secret=rolled.client_secret,
            previous_expires_at=iso(rolled.previous_expires_at),
            rolled_at=iso(datetime.now(UTC)),
        )
        return ctx.respond(200, single("oauth_client_secret", client.client_id, attrs), sealed=True)


# -- the 1.0.0 paths, deprecated (docs/versioning.md) ------------------------------------------
# Until 1.1.0 the project's own key set its redirect URIs and rolled its client secret here.
# Since issue 38 only the owner (or an administrator) does, signed in to the gateway itself; the
# old paths stay served until their sunset for the owner's token, the project named by
# X-Project-ID, and answer exactly as the paths that replace them.
_NOTICE = date(2026, 11, 28)
_SUNSET = date(2027, 11, 28)
ProjectHeader = Annotated[
    int | None,
    Header(
        alias="X-Project-ID",
        description="The project whose client is meant (the deprecated paths have no id)",
    ),
]


def _named(project_id: int | None) -> int:
    if project_id is None:
        raise invalid_field("X-Project-ID", "names the project whose client is meant")
    return project_id


@router.put(
    "/oauth-client",
    response_model=One[OAuthClientAttributes],
    responses=_OWNER_PROBLEMS | problems(409, 422),
    **deprecated(_NOTICE, _SUNSET, "PUT /v1/projects/{project_id}/oauth-client"),
)
async def set_redirect_uris_by_header(
    payload: RedirectUrisIn, user: Developer, request: Request, project_id: ProjectHeader = None
) -> Any:
    """Deprecated since 1.1.0: use `PUT /v1/projects/{project_id}/oauth-client`. The
    project's key no longer sets its redirect URIs; its owner does, signed in to the gateway,
    naming the project in `X-Project-ID`."""
    return await set_redirect_uris(_named(project_id), payload, user, request)


@router.post(
    "/oauth-client/secret/roll",
    response_model=One[OAuthClientSecretAttributes],
    responses=_ROLL_PROBLEMS,
    **deprecated(_NOTICE, _SUNSET, "POST /v1/projects/{project_id}/oauth-client/secret/roll"),
)
async def roll_secret_by_header(
    payload: ClientSecretRollIn,
    user: FreshDeveloper,
    request: Request,
    project_id: ProjectHeader = None,
) -> Any:
    """Deprecated since 1.1.0: use `POST /v1/projects/{project_id}/oauth-client/secret/roll`.
    The project's key no longer rolls its client secret; its owner does, signed in to the
    gateway, naming the project in `X-Project-ID`."""
    return await roll_secret(_named(project_id), payload, user, request)
