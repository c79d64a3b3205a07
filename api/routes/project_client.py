"""A project's own OAuth client: read it, and set its redirect URIs (decisions.md: every
approved or registered project gets a client; the project sets its redirect URIs)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from api.callers import ProjectCaller
from api.deps import SessionDep
from api.envelope import single
from api.idempotency import IdempotencyKey, write_context
from api.openapi import problems
from api.schemas.inputs import KeyedSecretRoll, RedirectUris
from api.schemas.onboarding import OAuthClientAttributes
from api.typed import Attributes, One
from core.errors import NotFound
from core.time import iso
from db.models import Project
from onboarding.clients import (
    ensure_project_client,
    project_client,
    roll_client_secret,
)

router = APIRouter(prefix="/v1/projects/oauth-client", tags=["projects"])


_PROBLEMS = problems(429, caller="project")


class RedirectUrisIn(BaseModel):
    redirect_uris: RedirectUris = Field(
        examples=[["https://app.example/callback", "http://localhost:3000/callback"]],
        description="Absolute https URLs (http only on localhost); replaces the list",
    )
    idempotency_key: IdempotencyKey = None


@router.get(
    "",
    response_model=One[OAuthClientAttributes],
    responses=_PROBLEMS | problems(subject="OAuth client"),
)
async def get_client(project: ProjectCaller, session: SessionDep) -> dict[str, Any]:
    """The calling project's OAuth client (id, redirect URIs, scopes users may grant)."""
    client = await project_client(session, project.project_id)
    if client is None:
        raise NotFound(f"Project {project.project_id} has no OAuth client")
    return single("oauth_client", client.client_id, OAuthClientAttributes.of(client))


@router.put("", response_model=One[OAuthClientAttributes], responses=_PROBLEMS | problems(409))
async def set_redirect_uris(
    payload: RedirectUrisIn, project: ProjectCaller, request: Request
) -> Any:
    """Set the redirect URIs of the calling project's OAuth client (created if missing)."""
    async with write_context(request, project, operation="projects.oauth_client.update") as ctx:
        row = await ctx.session.get(Project, project.project_id)
        if row is None:
            raise NotFound(f"Project {project.project_id} does not exist")
        client = await ensure_project_client(ctx.session, row)
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
    "/secret/roll",
    response_model=One[OAuthClientSecretAttributes],
    responses=_PROBLEMS | problems(409, 422),
)
async def roll_secret(payload: ClientSecretRollIn, project: ProjectCaller, request: Request) -> Any:
    """Roll the client secret of the calling project's OAuth client: the new one is shown once,
    the previous one works for `expire_previous_in_seconds` (default 24 h). A public client
    gets its first secret and becomes confidential."""
    async with write_context(
        request, project, operation="projects.oauth_client.secret.roll"
    ) as ctx:
        row = await ctx.session.get(Project, project.project_id)
        if row is None:
            raise NotFound(f"Project {project.project_id} does not exist")
        client = await ensure_project_client(ctx.session, row)
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
