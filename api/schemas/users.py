"""A user as the API shows it (api.routes.users, api.routes.attributes): each model is read from
the ``User`` row (``Shape.of_row``)."""

from __future__ import annotations

from typing import Self

from pydantic import Field

from api.typed import Attributes
from db.models import User


class PublicUserAttributes(Attributes):
    uid: str
    display_name: str | None
    avatar_url: str | None
    created_at: str

    @classmethod
    def of(cls, user: User) -> Self:
        return cls.of_row(user)


class BaseProfileAttributes(PublicUserAttributes):
    role: str
    wallet_address: str | None
    station_id: int | None
    unit_id: int | None


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
    def of(cls, user: User, *, show_email: bool) -> Self:
        """``show_email``: whether the caller may see the address (the `email` scope); no
        default, so no route shows it by omission."""
        return cls.of_row(user) if show_email else cls.of_row(user, email=None)


class UserProfileAttributes(UserAttributes):
    username: str | None
    station_id: int | None
    unit_id: int | None
