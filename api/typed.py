"""Typed envelopes: ``One[Attrs]``, ``Many[Attrs]`` and ``Listing[Attrs]`` give the OpenAPI
document the exact shape of a resource's attributes (``api.envelope`` builds the bodies)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Self, TypeVar

from pydantic import BaseModel, ConfigDict

from api.envelope import Meta
from core.time import iso

A = TypeVar("A", bound=BaseModel)


class Shape(BaseModel):
    """Base of every response model: a key the model does not declare is refused
    (``extra="forbid"``), so the OpenAPI document lists every field that is sent."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def of_row(cls, row: object, **given: Any) -> Self:
        """The model read from ``row``: each declared field from the row's attribute of the
        same name (a datetime as the wire's UTC time), unless ``given``. Pydantic checks every
        value against the field's type, so a column that does not fit fails here, not on the
        client."""
        values = {
            name: given[name] if name in given else _wire(getattr(row, name))
            for name in cls.model_fields
            if name in given or hasattr(row, name)
        }
        return cls(**values)


def _wire(value: Any) -> Any:
    return iso(value) if isinstance(value, datetime) else value


class Attributes(Shape):
    """A resource's attributes, the one definition of its wire shape. Routes build the model
    (``XAttributes.of(row, ...)``, mostly through ``of_row``) and ``api.envelope`` sends the
    fields it set (an optional field the builder leaves out is absent, not null).

    Naming: a resource's attributes are ``<Resource>Attributes``, a part nested in them is a
    plain noun, a body that is not an envelope ends in ``Body``, a request body in ``In``; these
    are the SDK's public names."""


class TypedResource(BaseModel, Generic[A]):
    type: str
    id: str
    attributes: A


class One(BaseModel, Generic[A]):
    data: TypedResource[A]
    meta: Meta


class PageMeta(Meta):
    total: int
    page: int
    per_page: int


class Many(BaseModel, Generic[A]):
    data: list[TypedResource[A]]
    meta: PageMeta


class CountMeta(Meta):
    total: int


class Listing(BaseModel, Generic[A]):
    """A whole (unpaged) list with its count."""

    data: list[TypedResource[A]]
    meta: CountMeta
