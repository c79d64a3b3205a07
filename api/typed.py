"""Typed envelopes: ``One[Attrs]`` and ``Many[Attrs]`` give the OpenAPI document the exact
shape of a resource's attributes (``api.envelope`` builds the bodies)."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel

from api.envelope import Meta

A = TypeVar("A", bound=BaseModel)


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
