"""Models, part 8 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._models_1 import BaseModel
from ._models_3 import GenericAttributesIdType
from ._models_4 import GenericDataMeta, GenericMany, Meta, PageMeta
from ._models_6 import UnitAttributes, UnitState, UnitStatsAttributes, ViewMeta
from ._models_7 import (
    ApiRoutesTechtreeConfigAttributes,
    GlobalAttributes,
    MiningStatsAttributes,
    PoolAttributes,
)


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


TypedResourceConfigAttributes = GenericAttributesIdType[ApiRoutesTechtreeConfigAttributes]


TypedResourceGlobalAttributes = GenericAttributesIdType[GlobalAttributes]


TypedResourceMiningStatsAttributes = GenericAttributesIdType[MiningStatsAttributes]


TypedResourceTreeAttributes = GenericAttributesIdType[TreeAttributes]


TypedResourceUnitAttributes = GenericAttributesIdType[UnitAttributes]


TypedResourceUnitStatsAttributes = GenericAttributesIdType[UnitStatsAttributes]


ApiTypedOneConfigAttributes = GenericDataMeta[TypedResourceConfigAttributes, Meta]


ItemPoolAttributes = GenericAttributesIdType[PoolAttributes]


ManyUnitAttributes = GenericMany[TypedResourceUnitAttributes, PageMeta]


OneGlobalAttributes = GenericDataMeta[TypedResourceGlobalAttributes, Meta]


OneMiningStatsAttributes = GenericDataMeta[TypedResourceMiningStatsAttributes, Meta]


OnePoolAttributes = GenericDataMeta[ItemPoolAttributes, ViewMeta]


OneTreeAttributes = GenericDataMeta[TypedResourceTreeAttributes, Meta]


OneUnitAttributes = GenericDataMeta[TypedResourceUnitAttributes, Meta]


OneUnitStatsAttributes = GenericDataMeta[TypedResourceUnitStatsAttributes, Meta]
