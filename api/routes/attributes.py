"""Per-project user attributes: projects report, delete and batch-read them; anyone reads what
the visibility rules let them see (onboarding/visibility.py, docs/onboarding.md).

The project's status decides what it may do (onboarding/status.py): writes need ``active`` or
``testing``, reads also work in ``maintenance``; a ``deleted`` project's attributes are hidden.
Responses to a project in ``testing`` carry ``meta.project_status = "testing"``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, StringConstraints, field_validator

from access.callers import project, user
from api.auth.consent import require_user_authorized
from api.auth.declaration import Callers
from api.auth.principal import ProjectPrincipal, UserPrincipal
from api.callers import ProjectCaller, ProjectIdPath
from api.deps import SessionDep
from api.envelope import PageQuery, meta, page, resource, single
from api.idempotency import IdempotencyKey, OptionalIdempotencyKey, write_context
from api.openapi import problems
from api.schemas.attributes import (
    AttributeDeletionAttributes,
    AttributeValue,
    FullProfileAttributes,
    ProfileAttribute,
    ProjectAttributeAttributes,
    ProjectAttributeSetAttributes,
)
from api.schemas.users import UserAttributes
from api.typed import Listing, Many, One
from core.time import iso
from db.models import Project
from onboarding import attributes
from onboarding.visibility import Viewer

router = APIRouter(prefix="/v1/users", tags=["attributes"])


_PROJECT_REFUSED = problems(caller="project")
_WRITE_REFUSED = problems(
    s409="Idempotency conflict, or the project's status forbids attribute writes (`invalid-state`)"
)


class AttributeIn(BaseModel):
    attribute_key: str = Field(min_length=1, max_length=100, examples=["auction_wins"])
    attribute_value: Any = Field(examples=[{"count": 3}])
    visibility: Literal["public", "private", "authorized"] = "private"
    idempotency_key: OptionalIdempotencyKey = None

    @field_validator("attribute_value")
    @classmethod
    def _present(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("attribute_value is required (any JSON value but null)")
        return value


def _flag(project: Project) -> dict[str, Any]:
    """Meta marking answers to a project in ``testing``."""
    return {"project_status": project.status} if project.status == "testing" else {}


AttributeKeys = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=100)]],
    Field(min_length=1, max_length=100),
]


class AttributeDeleteIn(BaseModel):
    """Keys to delete from the calling project's attributes of the user."""

    model_config = {
        "json_schema_extra": {
            "examples": [{"attribute_keys": ["auction_wins", "level"], "idempotency_key": "d-1"}]
        }
    }

    attribute_keys: AttributeKeys
    idempotency_key: IdempotencyKey = None


class AttributeBatchIn(BaseModel):
    """Batch read of the calling project's attributes: up to 100 users x 100 keys."""

    model_config = {
        "json_schema_extra": {
            "examples": [{"uids": ["u_alice", "u_bob"], "attribute_keys": ["level"]}]
        }
    }

    uids: Annotated[
        list[Annotated[str, StringConstraints(min_length=1, max_length=100)]],
        Field(min_length=1, max_length=100),
    ]
    attribute_keys: AttributeKeys | None = Field(None, description="All keys when absent")


@router.delete(
    "/{uid}/attributes",
    response_model=One[AttributeDeletionAttributes],
    responses=_PROJECT_REFUSED | _WRITE_REFUSED,
)
async def delete_attributes(
    uid: str, payload: AttributeDeleteIn, project: ProjectCaller, request: Request
) -> Any:
    """Delete some of this project's attributes of a user (idempotent; missing keys listed)."""
    async with write_context(request, project, operation="attributes.delete", user_uid=uid) as ctx:
        done = await attributes.delete(ctx.session, project.project_id, uid, payload.attribute_keys)
        return ctx.respond(
            200,
            single(
                "user_attribute_deletion",
                uid,
                AttributeDeletionAttributes(
                    uid=uid,
                    project_id=str(project.project_id),
                    deleted=done.deleted,
                    not_found=done.not_found,
                ),
                **_flag(done.project),
            ),
        )


@router.post(
    "/batch/attributes",
    response_model=Listing[ProjectAttributeSetAttributes],
    responses=_PROJECT_REFUSED
    | problems(s409="The project's status forbids attribute reads (`invalid-state`)"),
)
async def batch_attributes(
    payload: AttributeBatchIn, project: ProjectCaller, session: SessionDep
) -> dict[str, Any]:
    """Read this project's attributes of many users at once (one item per requested uid)."""
    own, found = await attributes.of_users(
        session, project.project_id, payload.uids, payload.attribute_keys
    )
    project_id = str(project.project_id)
    items = [
        resource(
            "user_project_attributes",
            uid,
            ProjectAttributeSetAttributes(
                uid=uid,
                project_id=project_id,
                attributes={
                    r.attribute_key: AttributeValue(
                        value=r.attribute_value,
                        visibility=r.visibility,
                        updated_at=iso(r.updated_at),
                    )
                    for r in rows
                },
            ),
        )
        for uid, rows in found.items()
    ]
    return {"data": items, "meta": meta(total=len(items), **_flag(own))}


async def viewer(
    who: Annotated[
        UserPrincipal | ProjectPrincipal, Depends(Callers(user("user:read"), project()))
    ],
) -> Viewer:
    """A bearer token with user:read, or project credentials (anonymous callers: 401)."""
    if isinstance(who, ProjectPrincipal):
        return Viewer(project_id=who.project_id)
    return Viewer(uid=who.uid, admin=who.is_admin)


ViewerDep = Annotated[Viewer, Depends(viewer)]


@router.get(
    "/{uid}/projects/{project_id}/attributes",
    response_model=Many[ProjectAttributeAttributes],
    responses=problems(
        scope="user:read",
        subject="user or project",
        s401="No credentials: a bearer token with user:read, or project credentials "
        "(`unauthorized`)",
        s409="The project's status hides its attributes (`invalid-state`)",
    ),
)
async def project_attributes(
    uid: str, project_id: ProjectIdPath, who: ViewerDep, session: SessionDep, paging: PageQuery
) -> dict[str, Any]:
    """A project's attributes of a user (scope user:read, or project credentials), limited to
    what the caller may see, by key, paged."""
    visible = await attributes.of_project(session, who, uid, project_id)
    shown = visible[paging.offset : paging.offset + paging.per_page]
    items = [
        resource("user_project_attribute", r.id, ProjectAttributeAttributes.of(r)) for r in shown
    ]
    return page(items, len(visible), paging)


@router.get(
    "/{uid}/full-profile",
    response_model=One[FullProfileAttributes],
    responses=problems(
        401,
        subject="user",
        s403="Bearer token without user:read (`insufficient-scope`), or a "
        "project the user has not authorized (`user-not-authorized-for-project`)",
    ),
)
async def full_profile(uid: str, who: ViewerDep, session: SessionDep, request: Request) -> Any:
    """Base profile plus every project attribute the caller may see (user:read or a project).

    A project sees it only for users who authorized it, and their e-mail only if they granted
    it the ``email`` scope; a user sees their own (e-mail with the ``email`` scope), and of
    others only what is public (an administrator sees everything)."""
    principal = getattr(request.state, "principal", None)
    held: frozenset[str] = getattr(principal, "scopes", frozenset())
    profile = await attributes.full_profile(session, who, uid, held)
    # profile.hidden decides the e-mail (and the rest) below.
    shown = UserAttributes.of(profile.user, show_email=True).model_dump()
    body = FullProfileAttributes(
        **{k: (None if k in profile.hidden else v) for k, v in shown.items()},
        project_attributes=[ProfileAttribute.of(r) for r in profile.attributes],
    )
    return JSONResponse(single("user_full_profile", uid, body))


# Declared after /batch/attributes, so that path is not taken for a uid "batch".
@router.post(
    "/{uid}/attributes",
    response_model=One[ProjectAttributeAttributes],
    responses=_PROJECT_REFUSED
    | problems(s403="`user-not-authorized-for-project`, `project-suspended`, ...")
    | _WRITE_REFUSED,
)
async def report_attribute(
    uid: str, payload: AttributeIn, project: ProjectCaller, request: Request
) -> Any:
    """Report (upsert) one attribute of a user who authorized this project."""
    async with write_context(
        request, project, operation="attributes.upsert", user_uid=uid, key_optional=True
    ) as ctx:
        await require_user_authorized(ctx.session, project, uid)
        done = await attributes.report(
            ctx.session, project.project_id, uid,
            payload.attribute_key, payload.attribute_value, payload.visibility,
        )  # fmt: skip
        row = done.attribute
        return ctx.respond(
            200,
            single(
                "user_project_attribute",
                row.id,
                ProjectAttributeAttributes.of(row),
                **_flag(done.project),
            ),
        )
