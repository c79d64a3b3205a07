"""Typed envelopes: ``One[Attrs]``, ``Many[Attrs]`` and ``Listing[Attrs]`` give the OpenAPI
document the exact shape of a resource's attributes (``api.envelope`` builds the bodies)."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from api.envelope import Meta

A = TypeVar("A", bound=BaseModel)


class Attributes(BaseModel):
    """Base of a resource's attributes: a field the model forgets is still sent (a body
    validated through its response model never loses a key on the wire)."""

    model_config = ConfigDict(extra="allow")


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
