"""Per-project user attributes: projects report, delete and batch-read them; anyone reads what
the visibility rules let them see (onboarding/visibility.py, docs/onboarding.md).

The project's status decides what it may do (onboarding/status.py): writes need ``active`` or
``testing``, reads also work in ``maintenance``; a ``deleted`` project's attributes are hidden.
Responses to a project in ``testing`` carry ``meta.project_status = "testing"``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from fastapi.security import SecurityScopes
from pydantic import BaseModel, Field, StringConstraints, field_validator
from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert

from access.consent import authorized_projects, granted_scopes
from api.auth.consent import require_user_authorized
from api.auth.deps import (
    api_key_header,
    current_user,
    oauth2_scheme,
    project_id_header,
)
from api.auth.project import ProjectAuthenticator
from api.callers import ProjectCaller, ProjectIdPath
from api.deps import SessionDep
from api.envelope import PageQuery, meta, page, resource, single
from api.idempotency import IdempotencyKey, OptionalIdempotencyKey, write_context
from api.openapi import problems
from api.ratelimit import enforce_ip
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
from core.errors import DomainError, NotFound
from core.time import iso
from db.models import Project, User
from db.models.access import UserProjectAttribute
from onboarding.status import ALLOWED, Capability, require_project_allows
from onboarding.visibility import ANONYMOUS, Viewer, can_see

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
        own = await require_project_allows(
            ctx.session, project.project_id, Capability.ATTRIBUTE_WRITE
        )
        keys = sorted(set(payload.attribute_keys))
        deleted = await ctx.session.scalars(
            delete(UserProjectAttribute)
            .where(
                UserProjectAttribute.uid == uid,
                UserProjectAttribute.project_id == project.project_id,
                UserProjectAttribute.attribute_key.in_(keys),
            )
            .returning(UserProjectAttribute.attribute_key)
        )
        gone = sorted(deleted)
        return ctx.respond(
            200,
            single(
                "user_attribute_deletion",
                uid,
                AttributeDeletionAttributes(
                    uid=uid,
                    project_id=str(project.project_id),
                    deleted=gone,
                    not_found=[k for k in keys if k not in gone],
                ),
                **_flag(own),
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
    own = await require_project_allows(session, project.project_id, Capability.ATTRIBUTE_READ)
    uids = list(dict.fromkeys(payload.uids))
    statement = select(UserProjectAttribute).where(
        UserProjectAttribute.project_id == project.project_id,
        UserProjectAttribute.uid.in_(uids),
    )
    if payload.attribute_keys is not None:
        statement = statement.where(UserProjectAttribute.attribute_key.in_(payload.attribute_keys))
    found: dict[str, dict[str, AttributeValue]] = {uid: {} for uid in uids}
    for row in await session.scalars(statement.order_by(UserProjectAttribute.attribute_key)):
        found[row.uid][row.attribute_key] = AttributeValue(
            value=row.attribute_value, visibility=row.visibility, updated_at=iso(row.updated_at)
        )
    project_id = str(project.project_id)
    items = [
        resource(
            "user_project_attributes",
            uid,
            ProjectAttributeSetAttributes(uid=uid, project_id=project_id, attributes=values),
        )
        for uid, values in found.items()
    ]
    return {"data": items, "meta": meta(total=len(items), **_flag(own))}


async def viewer(
    request: Request,
    token: str | None = Depends(oauth2_scheme),
    _project_id: str | None = Depends(project_id_header),
    _api_key: str | None = Depends(api_key_header),
) -> Viewer:
    """Optional caller: a bearer token (scope user:read), project credentials, or nobody."""
    if token:
        user = await current_user(SecurityScopes(["user:read"]), request, token)
        return Viewer(uid=user.uid, admin=user.is_admin)
    if request.headers.get("x-project-id"):
        authenticator: ProjectAuthenticator = request.app.state.project_authenticator
        project = await authenticator.authenticate(request, [])
        request.state.principal = project
        return Viewer(project_id=project.project_id)
    await enforce_ip(request)  # anonymous (whatever other headers it sent): counted by IP
    return ANONYMOUS


ViewerDep = Annotated[Viewer, Depends(viewer)]


async def _visible(
    session: SessionDep, who: Viewer, uid: str, rows: list[UserProjectAttribute]
) -> list[UserProjectAttribute]:
    granted: set[int] = set()
    if who.project_id is not None and any(r.visibility == "authorized" for r in rows):
        granted = await authorized_projects(session, uid)
    return [
        r
        for r in rows
        if can_see(
            who,
            uid=uid,
            owner_project=r.project_id,
            visibility=r.visibility,
            authorized_projects=granted,
        )
    ]


def _signed_in(who: Viewer) -> None:
    """The user:read readers answer an anonymous caller 401 (a bearer token or a project)."""
    if who.anonymous:
        raise DomainError(
            "This call needs a bearer token with user:read (or project credentials)",
            status=401,
            slug="unauthorized",
            headers={"WWW-Authenticate": 'Bearer scope="user:read"'},
        )


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
    _signed_in(who)
    if await session.get(User, uid) is None:
        raise NotFound(f"User {uid} does not exist")
    await require_project_allows(session, project_id, Capability.ATTRIBUTE_READ)
    rows = list(
        await session.scalars(
            select(UserProjectAttribute)
            .where(UserProjectAttribute.uid == uid, UserProjectAttribute.project_id == project_id)
            .order_by(UserProjectAttribute.attribute_key)
        )
    )
    visible = await _visible(session, who, uid, rows)
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
    _signed_in(who)
    private = {"email", "wallet_address", "role", "api_keys_configured", "station_id"}
    hidden: set[str] = set()
    if who.project_id is not None:
        scopes = await granted_scopes(session, who.project_id, uid)
        if scopes is None:
            raise DomainError(
                f"User {uid} has not authorized project {who.project_id}",
                status=403,
                slug="user-not-authorized-for-project",
            )
        hidden = set() if "email" in scopes else {"email"}
    elif not who.admin:
        principal = getattr(request.state, "principal", None)
        held: frozenset[str] = getattr(principal, "scopes", frozenset())
        hidden = private if who.uid != uid else (set() if "email" in held else {"email"})
    user = await session.get(User, uid)
    if user is None:
        raise NotFound(f"User {uid} does not exist")
    readable = [s for s, caps in ALLOWED.items() if Capability.ATTRIBUTE_READ in caps]
    rows = list(
        await session.scalars(
            select(UserProjectAttribute)
            .join(Project, Project.project_id == UserProjectAttribute.project_id)
            .where(UserProjectAttribute.uid == uid, Project.status.in_(readable))
            .order_by(UserProjectAttribute.project_id, UserProjectAttribute.attribute_key)
        )
    )
    visible = await _visible(session, who, uid, rows)
    shown = UserAttributes.of(user).model_dump()
    attributes = FullProfileAttributes(
        **{k: (None if k in hidden else v) for k, v in shown.items()},
        project_attributes=[ProfileAttribute.of(r) for r in visible],
    )
    return JSONResponse(single("user_full_profile", uid, attributes))


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
        own = await require_project_allows(
            ctx.session, project.project_id, Capability.ATTRIBUTE_WRITE
        )
        values = {
            "uid": uid,
            "project_id": project.project_id,
            "attribute_key": payload.attribute_key,
            "attribute_value": payload.attribute_value,
            "visibility": payload.visibility,
        }
        insert_ = insert(UserProjectAttribute).values(**values)
        statement = insert_.on_conflict_do_update(
            index_elements=["uid", "project_id", "attribute_key"],
            set_={
                "attribute_value": insert_.excluded.attribute_value,
                "visibility": insert_.excluded.visibility,
                "updated_at": func.now(),
            },
        ).returning(UserProjectAttribute)
        row = (await ctx.session.execute(statement)).scalar_one()
        return ctx.respond(
            200,
            single(
                "user_project_attribute", row.id, ProjectAttributeAttributes.of(row), **_flag(own)
            ),
        )
