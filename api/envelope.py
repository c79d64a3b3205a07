"""JSON:API-style success envelopes: ``data`` with ``type``/``id``/``attributes`` and ``meta``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any

import orjson
from fastapi import Query, Response
from pydantic import BaseModel, Field

from core.logging import request_id_var

API_VERSION = "v1"


class Meta(BaseModel):
    model_config = {"extra": "allow"}
    request_id: str | None = None
    api_version: str = API_VERSION


# The deepest page one may ask for: page x per_page stays far inside the database's BIGINT
# OFFSET (a larger page is a 422, never a database error).
MAX_PAGE = 1_000_000


class PageParams(BaseModel):
    page: int = Field(1, ge=1, le=MAX_PAGE)
    per_page: int = Field(20, ge=1, le=100)

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


# A list route's ``?page=&per_page=`` parameter: ``params: PageQuery``.
PageQuery = Annotated[PageParams, Query()]


def resource(type_: str, id_: object, attributes: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    """One resource. Attributes given as their model (api.typed.Attributes) are sent with the
    fields the builder set, so an optional field it leaves out is absent, not null."""
    if isinstance(attributes, BaseModel):
        shown = attributes.model_dump(mode="json", exclude_unset=True)
    else:
        shown = dict(attributes)
    return {"type": type_, "id": str(id_), "attributes": shown}


def meta(**extra: Any) -> dict[str, Any]:
    return {"request_id": request_id_var.get(), "api_version": API_VERSION, **extra}


def single(
    type_: str, id_: object, attributes: Mapping[str, Any] | BaseModel, **meta_extra: Any
) -> dict[str, Any]:
    return {"data": resource(type_, id_, attributes), "meta": meta(**meta_extra)}


def page(
    items: Iterable[dict[str, Any]], total: int, params: PageParams, **meta_extra: Any
) -> dict[str, Any]:
    return {
        "data": list(items),
        "meta": meta(total=total, page=params.page, per_page=params.per_page, **meta_extra),
    }


def fast(body: dict[str, Any]) -> Response:
    """The body as built, serialised once: the route's ``response_model`` documents it but does
    not re-validate it (a balance, price or bonus read answers in well under a millisecond of
    CPU, and FastAPI's validation and encoding of the dict cost a tenth of it)."""
    return Response(orjson.dumps(body), media_type="application/json")
