"""Per-project user attributes, flush-only: a project reports (upserts) and deletes its own
attributes of a user and reads them for many users at once; anyone reads what the visibility
rules (``onboarding.visibility``, docs/onboarding.md) let them see, alone or in a user's full
profile.

The project's status decides what it may do (``onboarding.status``): writes need ``active`` or
``testing``, reads also work in ``maintenance``; a ``deleted`` project's attributes are hidden
from everyone. Each write answers the project row too: its answer marks a project in
``testing``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete as delete_rows
from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from access.consent import authorized_projects, granted_scopes
from core.errors import DomainError, NotFound
from db.models import Project, User
from db.models.access import UserProjectAttribute
from onboarding.status import ALLOWED, Capability, require_project_allows
from onboarding.visibility import Viewer, can_see

# The profile fields only the user themself (and an administrator) see; a project sees the
# e-mail only with the ``email`` scope.
PRIVATE_FIELDS = frozenset({"email", "wallet_address", "role", "api_keys_configured", "station_id"})


@dataclass(frozen=True)
class Reported:
    attribute: UserProjectAttribute
    project: Project


async def report(
    session: AsyncSession, project_id: int, uid: str, key: str, value: Any, visibility: str
) -> Reported:
    """Upsert one attribute of ``uid`` kept by the project (whose consent the caller checked)."""
    project = await require_project_allows(session, project_id, Capability.ATTRIBUTE_WRITE)
    values = {
        "uid": uid,
        "project_id": project_id,
        "attribute_key": key,
        "attribute_value": value,
        "visibility": visibility,
    }
    upsert = insert(UserProjectAttribute).values(**values)
    statement = upsert.on_conflict_do_update(
        index_elements=["uid", "project_id", "attribute_key"],
        set_={
            "attribute_value": upsert.excluded.attribute_value,
            "visibility": upsert.excluded.visibility,
            "updated_at": func.now(),
        },
    ).returning(UserProjectAttribute)
    row = (await session.execute(statement)).scalar_one()
    return Reported(row, project)


@dataclass(frozen=True)
class Deleted:
    project: Project
    deleted: list[str]
    not_found: list[str]


async def delete(session: AsyncSession, project_id: int, uid: str, keys: Sequence[str]) -> Deleted:
    """Delete the project's attributes of ``uid`` under ``keys`` (idempotent: the keys that
    were not there are listed as such)."""
    project = await require_project_allows(session, project_id, Capability.ATTRIBUTE_WRITE)
    asked = sorted(set(keys))
    gone = await session.scalars(
        delete_rows(UserProjectAttribute)
        .where(
            UserProjectAttribute.uid == uid,
            UserProjectAttribute.project_id == project_id,
            UserProjectAttribute.attribute_key.in_(asked),
        )
        .returning(UserProjectAttribute.attribute_key)
    )
    deleted = sorted(gone)
    return Deleted(project, deleted, [k for k in asked if k not in deleted])


async def of_users(
    session: AsyncSession, project_id: int, uids: Sequence[str], keys: Sequence[str] | None
) -> tuple[Project, dict[str, list[UserProjectAttribute]]]:
    """The project's own attributes of each of ``uids`` (all keys when ``keys`` is None), by
    key; every uid asked for is in the answer, in order, even with none."""
    project = await require_project_allows(session, project_id, Capability.ATTRIBUTE_READ)
    found: dict[str, list[UserProjectAttribute]] = {uid: [] for uid in uids}
    statement = select(UserProjectAttribute).where(
        UserProjectAttribute.project_id == project_id, UserProjectAttribute.uid.in_(found)
    )
    if keys is not None:
        statement = statement.where(UserProjectAttribute.attribute_key.in_(keys))
    for row in await session.scalars(statement.order_by(UserProjectAttribute.attribute_key)):
        found[row.uid].append(row)
    return project, found


async def _visible(
    session: AsyncSession, viewer: Viewer, uid: str, rows: Sequence[UserProjectAttribute]
) -> list[UserProjectAttribute]:
    granted: set[int] = set()
    if viewer.project_id is not None and any(r.visibility == "authorized" for r in rows):
        granted = await authorized_projects(session, uid)
    return [
        r
        for r in rows
        if can_see(
            viewer,
            uid=uid,
            owner_project=r.project_id,
            visibility=r.visibility,
            authorized_projects=granted,
        )
    ]


async def _user(session: AsyncSession, uid: str) -> User:
    user = await session.get(User, uid)
    if user is None:
        raise NotFound(f"User {uid} does not exist")
    return user


async def of_project(
    session: AsyncSession, viewer: Viewer, uid: str, project_id: int
) -> list[UserProjectAttribute]:
    """The attributes of ``uid`` kept by ``project_id`` that ``viewer`` may see, by key."""
    await _user(session, uid)
    await require_project_allows(session, project_id, Capability.ATTRIBUTE_READ)
    rows = await session.scalars(
        select(UserProjectAttribute)
        .where(UserProjectAttribute.uid == uid, UserProjectAttribute.project_id == project_id)
        .order_by(UserProjectAttribute.attribute_key)
    )
    return await _visible(session, viewer, uid, list(rows))


@dataclass(frozen=True)
class FullProfile:
    user: User
    hidden: frozenset[str]  # profile fields shown as null to this viewer
    attributes: list[UserProjectAttribute]  # of every project whose status allows reads


async def full_profile(
    session: AsyncSession, viewer: Viewer, uid: str, scopes: frozenset[str] = frozenset()
) -> FullProfile:
    """``uid``'s profile and every project attribute ``viewer`` may see. A project sees it
    only for a user who authorized it (403 otherwise), and the e-mail only with the ``email``
    scope granted; a user sees their own (the e-mail with the ``email`` scope among their
    token's ``scopes``), and of others only what is public; an administrator sees all."""
    hidden: frozenset[str] = frozenset()
    if viewer.project_id is not None:
        granted = await granted_scopes(session, viewer.project_id, uid)
        if granted is None:
            raise DomainError(
                f"User {uid} has not authorized project {viewer.project_id}",
                status=403,
                slug="user-not-authorized-for-project",
            )
        hidden = frozenset() if "email" in granted else frozenset({"email"})
    elif not viewer.admin and viewer.uid != uid:
        hidden = PRIVATE_FIELDS
    elif not viewer.admin and "email" not in scopes:
        hidden = frozenset({"email"})
    user = await _user(session, uid)
    readable = [s for s, caps in ALLOWED.items() if Capability.ATTRIBUTE_READ in caps]
    rows = await session.scalars(
        select(UserProjectAttribute)
        .join(Project, Project.project_id == UserProjectAttribute.project_id)
        .where(UserProjectAttribute.uid == uid, Project.status.in_(readable))
        .order_by(UserProjectAttribute.project_id, UserProjectAttribute.attribute_key)
    )
    return FullProfile(user, hidden, await _visible(session, viewer, uid, list(rows)))
