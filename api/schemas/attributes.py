"""Bodies of the per-project user attribute routes (api/routes/attributes.py), each built by
its model; the field order is the wire order."""

from __future__ import annotations

from typing import Any, Self

from api.schemas.users import UserAttributes
from api.typed import Attributes, Shape
from db.models.access import UserProjectAttribute


class ProjectAttributeAttributes(Attributes):
    uid: str
    project_id: str
    attribute_key: str
    attribute_value: Any
    visibility: str
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, row: UserProjectAttribute) -> Self:
        return cls.of_row(row, project_id=str(row.project_id))


class AttributeDeletionAttributes(Attributes):
    uid: str
    project_id: str
    deleted: list[str]
    not_found: list[str]


class AttributeValue(Shape):
    value: Any
    visibility: str
    updated_at: str


class ProjectAttributeSetAttributes(Attributes):
    uid: str
    project_id: str
    attributes: dict[str, AttributeValue]


class ProfileAttribute(Shape):
    project_id: str
    attribute_key: str
    attribute_value: Any
    visibility: str
    updated_at: str

    @classmethod
    def of(cls, row: UserProjectAttribute) -> Self:
        return cls.of_row(row, project_id=str(row.project_id))


class FullProfileAttributes(UserAttributes):
    """The user's base profile (the fields of ``GET /v1/users/me``, those the caller may not
    see set to null) and the project attributes the caller may see."""

    role: str | None  # type: ignore[assignment]  # null when hidden from the caller
    api_keys_configured: bool | None  # type: ignore[assignment]
    project_attributes: list[ProfileAttribute]
