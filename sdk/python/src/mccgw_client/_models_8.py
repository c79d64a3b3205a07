"""Models, part 8 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._models_1 import BaseModel
from ._models_3 import GenericAttributesIdType, ViewMeta
from ._models_4 import GenericDataMeta, GenericMany, Meta, PageMeta
from ._models_6 import UnitAttributes, UnitState, UnitStatsAttributes
from ._models_7 import (
    ApiRoutesTechtreeConfigAttributes,
    GlobalAttributes,
    MiningStatsAttributes,
    OracleAttributes,
)


class PoolAttributes(BaseModel):
    accrued_interest: Annotated[str, Field(title="Accrued Interest")]
    asset_mint: Annotated[str, Field(title="Asset Mint")]
    authority: Annotated[str, Field(title="Authority")]
    base_rate_bps: Annotated[int, Field(title="Base Rate Bps")]
    borrow_rate_bps: Annotated[int, Field(title="Borrow Rate Bps")]
    borrows_paused: Annotated[bool, Field(title="Borrows Paused")]
    created_at: Annotated[str | None, Field(title="Created At")]
    deposits_paused: Annotated[bool, Field(title="Deposits Paused")]
    is_active: Annotated[bool, Field(title="Is Active")]
    last_update_at: Annotated[str | None, Field(title="Last Update At")]
    lp_mint: Annotated[str, Field(title="Lp Mint")]
    max_ltv_bps: Annotated[int, Field(title="Max Ltv Bps")]
    name: Annotated[str, Field(title="Name")]
    optimal_utilization_bps: Annotated[int, Field(title="Optimal Utilization Bps")]
    oracle: OracleAttributes | None
    protocol_fees: Annotated[str, Field(title="Protocol Fees")]
    slope1_bps: Annotated[int, Field(title="Slope1 Bps")]
    slope2_bps: Annotated[int, Field(title="Slope2 Bps")]
    supply_rate_bps: Annotated[int, Field(title="Supply Rate Bps")]
    total_borrowed: Annotated[str, Field(title="Total Borrowed")]
    total_deposits: Annotated[str, Field(title="Total Deposits")]
    total_lp_supply: Annotated[str, Field(title="Total Lp Supply")]
    updated_at: Annotated[str | None, Field(title="Updated At")]
    utilization_bps: Annotated[int, Field(title="Utilization Bps")]
    vault: Annotated[str, Field(title="Vault")]


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
