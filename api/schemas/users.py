"""A user as the API shows it (api.routes.users, api.routes.attributes)."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field

from api.typed import Attributes
from core.time import iso
from db.models import User


class PublicUserAttributes(Attributes):
    uid: str
    display_name: str | None
    avatar_url: str | None
    created_at: str

    @classmethod
    def of(cls, user: User) -> Self:
        return cls(
            uid=user.uid,
            display_name=user.display_name,
            avatar_url=user.avatar_url,
            created_at=iso(user.created_at),
        )


class BaseProfileAttributes(PublicUserAttributes):
    role: str
    wallet_address: str | None
    station_id: int | None
    unit_id: int | None

    @classmethod
    def of(cls, user: User) -> Self:
        return cls(
            **PublicUserAttributes.of(user).model_dump(),
            role=user.role,
            wallet_address=user.wallet_address,
            station_id=user.station_id,
            unit_id=user.unit_id,
        )


class UserAttributes(Attributes):
    uid: str
    email: str | None = Field(description="only with the `email` scope (or for an admin)")
    wallet_address: str | None
    role: str
    api_keys_configured: bool
    display_name: str | None
    avatar_url: str | None
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, user: User, *, show_email: bool = True) -> Self:
        return cls(**_user_fields(user, show_email))


class UserProfileAttributes(UserAttributes):
    username: str | None
    station_id: int | None
    unit_id: int | None

    @classmethod
    def of(cls, user: User, *, show_email: bool = True) -> Self:
        return cls(
            **_user_fields(user, show_email),
            username=user.username,
            station_id=user.station_id,
            unit_id=user.unit_id,
        )


def _user_fields(user: User, show_email: bool) -> dict[str, Any]:
    return {
        "uid": user.uid,
        "email": user.email if show_email else None,
        "wallet_address": user.wallet_address,
        "role": user.role,
        "api_keys_configured": user.api_keys_configured,
        "display_name": user.display_name,
        "avatar_url": user.avatar_url,
        "created_at": iso(user.created_at),
        "updated_at": iso(user.updated_at),
    }
