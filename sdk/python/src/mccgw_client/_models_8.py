"""Models, part 8 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._models_1 import BaseModel
from ._models_4 import Meta, PageMeta
from ._models_5 import UnitAttributes
from ._models_6 import ApiRoutesTechtreeConfigAttributes, UnitState, UnitStatsAttributes, ViewMeta
from ._models_7 import GlobalAttributes, MiningStatsAttributes, PoolAttributes


class TreeAttributes(BaseModel):
    bonus_multiplier: Annotated[
        float,
        Field(description="1 + bonus: 1.3 means a 30 % bonus", title="Bonus Multiplier"),
    ]
    bonus_percent: Annotated[int, Field(title="Bonus Percent")]
    station: Annotated[str | None, Field(title="Station")]
    units: Annotated[list[UnitState], Field(title="Units")]
    window_end: Annotated[str, Field(title="Window End")]
    window_start: Annotated[str, Field(title="Window Start")]


class TypedResourceConfigAttributes(BaseModel):
    attributes: ApiRoutesTechtreeConfigAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class TypedResourceGlobalAttributes(BaseModel):
    attributes: GlobalAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class TypedResourceMiningStatsAttributes(BaseModel):
    attributes: MiningStatsAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class TypedResourceTreeAttributes(BaseModel):
    attributes: TreeAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class TypedResourceUnitAttributes(BaseModel):
    attributes: UnitAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class TypedResourceUnitStatsAttributes(BaseModel):
    attributes: UnitStatsAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ApiTypedOneConfigAttributes(BaseModel):
    data: TypedResourceConfigAttributes
    meta: Meta


class ItemPoolAttributes(BaseModel):
    attributes: PoolAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ManyUnitAttributes(BaseModel):
    data: Annotated[list[TypedResourceUnitAttributes], Field(title="Data")]
    meta: PageMeta


class OneGlobalAttributes(BaseModel):
    data: TypedResourceGlobalAttributes
    meta: Meta


class OneMiningStatsAttributes(BaseModel):
    data: TypedResourceMiningStatsAttributes
    meta: Meta


class OnePoolAttributes(BaseModel):
    data: ItemPoolAttributes
    meta: ViewMeta


class OneTreeAttributes(BaseModel):
    data: TypedResourceTreeAttributes
    meta: Meta


class OneUnitAttributes(BaseModel):
    data: TypedResourceUnitAttributes
    meta: Meta


class OneUnitStatsAttributes(BaseModel):
    data: TypedResourceUnitStatsAttributes
    meta: Meta
