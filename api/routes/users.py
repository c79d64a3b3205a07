"""The current user, their profile, and public user info."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, Security
from pydantic import BaseModel, Field

from api.auth.deps import current_user
from api.auth.principal import UserPrincipal
from api.deps import SessionDep
from api.envelope import Envelope, single
from api.errors import NotFound
from api.idempotency import write_context
from db.models import User

router = APIRouter(prefix="/v1/users", tags=["users"])

UserRead = Annotated[UserPrincipal, Security(current_user, scopes=["user:read"])]
UserWrite = Annotated[UserPrincipal, Security(current_user, scopes=["user:write"])]

_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Missing or invalid bearer token (`unauthorized`)"},
    403: {"description": "Missing scope (`insufficient-scope`)"},
    429: {"description": "Rate limited (`rate-limit-exceeded`)"},
}


class ProfileUpdate(BaseModel):
    display_name: str = Field(min_length=1, max_length=50, examples=["Alice"])
    idempotency_key: str | None = Field(
        None, description="Required unless the Idempotency-Key header is sent"
    )


def _user_attributes(user: User, *, detailed: bool = False) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "uid": user.uid,
        "email": user.email,
        "wallet_address": user.wallet_address,
        "role": user.role,
        "api_keys_configured": user.api_keys_configured,
        "display_name": user.display_name,
        "avatar_url": user.avatar_url,
        "created_at": user.created_at.isoformat(),
        "updated_at": user.updated_at.isoformat(),
    }
    if detailed:
        attributes |= {"username": user.username, "station_id": user.station_id}
        attributes["unit_id"] = user.unit_id
    return attributes


async def _load(session: SessionDep, uid: str) -> User:
    user = await session.get(User, uid)
    if user is None:
        raise NotFound(f"User {uid} does not exist")
    return user


@router.get("/me", response_model=Envelope, responses=_PROBLEMS)
async def me(user: UserRead, session: SessionDep) -> dict[str, Any]:
    """The current user (scope user:read; `profile` also counts; `email` shows the e-mail)."""
    attributes = _user_attributes(await _load(session, user.uid))
    return single("user", user.uid, _email_scoped(attributes, user))


def _email_scoped(attributes: dict[str, Any], user: UserPrincipal) -> dict[str, Any]:
    """The e-mail address only for a token holding the ``email`` scope (or an admin's)."""
    if "email" in user.scopes or user.is_admin:
        return attributes
    return attributes | {"email": None}


@router.get("/me/profile", response_model=Envelope, responses=_PROBLEMS)
async def my_profile(user: UserRead, session: SessionDep) -> dict[str, Any]:
    """The current user's detailed profile."""
    row = await _load(session, user.uid)
    return single(
        "user_profile", user.uid, _email_scoped(_user_attributes(row, detailed=True), user)
    )


@router.patch(
    "/me/profile",
    response_model=Envelope,
    responses={**_PROBLEMS, 409: {"description": "Idempotency conflict"}},
)
async def update_my_profile(payload: ProfileUpdate, user: UserWrite, request: Request) -> Any:
    """Change the display name (scope user:write; idempotent per user for 24 h)."""
    async with write_context(
        request, user, operation="users.profile.update", user_uid=user.uid
    ) as ctx:
        row = await ctx.session.get(User, user.uid, with_for_update=True)
        if row is None:
            raise NotFound(f"User {user.uid} does not exist")
        row.display_name = payload.display_name
        await ctx.session.flush()
        await ctx.session.refresh(row)
        return ctx.respond(
            200, single("user_profile", user.uid, _user_attributes(row, detailed=True))
        )


@router.get("/{uid}", response_model=Envelope, responses={404: {"description": "No such user"}})
async def public_user(uid: str, session: SessionDep) -> dict[str, Any]:
    """Public information about a user (no authentication)."""
    user = await _load(session, uid)
    return single(
        "user_public",
        user.uid,
        {
            "uid": user.uid,
            "display_name": user.display_name,
            "avatar_url": user.avatar_url,
            "created_at": user.created_at.isoformat(),
        },
    )
