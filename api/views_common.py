"""Shared pieces of the chain-view routers: typed envelopes with the slot and account address
in `meta`, the Views dependency, and the error responses every view documents."""

from __future__ import annotations

from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query, Request
from pydantic import BaseModel, Field

from api.envelope import API_VERSION
from api.openapi import CHAIN_UNREACHABLE, problems
from api.typed import TypedResource
from core.logging import request_id_var
from views.base import View, ViewPage, Views

A = TypeVar("A", bound=BaseModel)


class ViewMeta(BaseModel):
    request_id: str | None = None
    api_version: str = API_VERSION
    slot: int = Field(description="The slot the data was read at (confirmed commitment)")
    address: str | None = Field(None, description="The account the resource was decoded from")
    program: str | None = Field(None, description="The program whose accounts a list scans")
    max_age_seconds: float = Field(description="Snapshots are re-read at most this often")


class ListMeta(ViewMeta):
    total: int
    page: int
    per_page: int


class One(BaseModel, Generic[A]):
    data: TypedResource[A]
    meta: ViewMeta


class Many(BaseModel, Generic[A]):
    data: list[TypedResource[A]]
    meta: ListMeta


def _views(request: Request) -> Views:
    views: Views = request.app.state.views
    return views


ViewsDep = Annotated[Views, Depends(_views)]


class Paging(BaseModel):
    page: int = Field(1, ge=1)
    per_page: int = Field(20, ge=1, le=100)


PagingDep = Annotated[Paging, Depends()]
PageQ = Annotated[int, Query(ge=1)]


def one(view: View, views: Views) -> dict[str, Any]:
    return {
        "data": {"type": view.type, "id": view.id, "attributes": view.attributes},
        "meta": {
            "request_id": request_id_var.get(),
            "api_version": API_VERSION,
            "slot": view.slot,
            "address": view.address,
            "max_age_seconds": views.ttl,
        },
    }


def many(p: ViewPage, paging: Paging, views: Views) -> dict[str, Any]:
    return {
        "data": [{"type": p.type, "id": i, "attributes": a} for i, a in p.items],
        "meta": {
            "request_id": request_id_var.get(),
            "api_version": API_VERSION,
            "slot": p.slot,
            "program": p.program,
            "address": p.extra.get("address"),
            "max_age_seconds": views.ttl,
            "total": p.total,
            "page": paging.page,
            "per_page": paging.per_page,
        },
    }


READ_ERRORS = problems(
    s404="The account does not exist on chain (`not-found`)",
    s422="Malformed address, id or query (`validation-error`)",
    s503=CHAIN_UNREACHABLE,
)
