"""Typed bodies of the per-project user attribute routes (api/routes/attributes.py); the field
order is the wire order."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from api.envelope import Meta
from api.typed import Shape, TypedResource

A = TypeVar("A", bound=BaseModel)


class CountMeta(Meta):
    total: int


class Counted(BaseModel, Generic[A]):
    """A whole list (not paged): ``meta.total`` counts it."""

    data: list[TypedResource[A]]
    meta: CountMeta


class ProjectAttributeAttributes(Shape):
    uid: str
    project_id: str
    attribute_key: str
    attribute_value: Any
    visibility: str
    created_at: str
    updated_at: str


class AttributeDeletionAttributes(Shape):
    uid: str
    project_id: str
    deleted: list[str]
    not_found: list[str]


class AttributeValue(Shape):
    value: Any
    visibility: str
    updated_at: str


class ProjectAttributeSetAttributes(Shape):
    uid: str
    project_id: str
    attributes: dict[str, AttributeValue]


class ProfileAttribute(Shape):
    project_id: str
    attribute_key: str
    attribute_value: Any
    visibility: str
    updated_at: str


class FullProfileAttributes(Shape):
    """The user's base profile (the fields of ``GET /v1/users/{uid}``, those the caller may not
    see set to null) and the project attributes the caller may see."""

    model_config = {"extra": "allow"}

    uid: str
    project_attributes: list[ProfileAttribute]
