"""Models, part 9 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_3 import DailyKpi, EstimateAttributes, FragmentConfigAttributes
from ._models_4 import HolderAttributes, HoldingAttributes, InterestAttributes, LoanAttributes
from ._models_5 import (
    LockAttributes,
    LpAttributes,
    MccBalance,
    MccPrice,
    McdBalance,
    McdRewardAttributes,
    MemberAttributes,
    MembershipAttributes,
    MiningRecordAttributes,
    MiningSubmissionAttributes,
)
from ._models_6 import (
    NftAttributes,
    NftDetailAttributes,
    OAuthClientAttributes,
    OAuthClientSecretAttributes,
    PositionAttributes,
    ProjectAttributeAttributes,
    ProjectAttributeSetAttributes,
)
from ._models_7 import (
    PublicUserAttributes,
    RegisteredEndpointAttributes,
    RegisteredProjectAttributes,
    RetryAttributes,
    StationSummary,
)
from ._models_8 import (
    GenericTyped,
    StatsAttributes,
    TechTreeConfigAttributes,
    TokenStats,
    TokenTransaction,
)

TypedResourceEstimateAttributes = GenericTyped[EstimateAttributes]


TypedResourceFragmentConfigAttributes = GenericTyped[FragmentConfigAttributes]


TypedResourceHolderAttributes = GenericTyped[HolderAttributes]


TypedResourceHoldingAttributes = GenericTyped[HoldingAttributes]


TypedResourceInterestAttributes = GenericTyped[InterestAttributes]


TypedResourceLoanAttributes = GenericTyped[LoanAttributes]


TypedResourceLockAttributes = GenericTyped[LockAttributes]


TypedResourceLpAttributes = GenericTyped[LpAttributes]


TypedResourceMccBalance = GenericTyped[MccBalance]


TypedResourceMccPrice = GenericTyped[MccPrice]


TypedResourceMcdBalance = GenericTyped[McdBalance]


TypedResourceMcdRewardAttributes = GenericTyped[McdRewardAttributes]


TypedResourceMemberAttributes = GenericTyped[MemberAttributes]


TypedResourceMembershipAttributes = GenericTyped[MembershipAttributes]


TypedResourceMiningRecordAttributes = GenericTyped[MiningRecordAttributes]


TypedResourceMiningSubmissionAttributes = GenericTyped[MiningSubmissionAttributes]


TypedResourceNftAttributes = GenericTyped[NftAttributes]


TypedResourceNftDetailAttributes = GenericTyped[NftDetailAttributes]


TypedResourceOAuthClientAttributes = GenericTyped[OAuthClientAttributes]


TypedResourceOAuthClientSecretAttributes = GenericTyped[OAuthClientSecretAttributes]


TypedResourcePositionAttributes = GenericTyped[PositionAttributes]


TypedResourceProjectAttributeAttributes = GenericTyped[ProjectAttributeAttributes]


TypedResourceProjectAttributeSetAttributes = GenericTyped[ProjectAttributeSetAttributes]


TypedResourcePublicUserAttributes = GenericTyped[PublicUserAttributes]


TypedResourceRegisteredEndpointAttributes = GenericTyped[RegisteredEndpointAttributes]


TypedResourceRegisteredProjectAttributes = GenericTyped[RegisteredProjectAttributes]


TypedResourceRetryAttributes = GenericTyped[RetryAttributes]


TypedResourceStatsAttributes = GenericTyped[StatsAttributes]


TypedResourceTechTreeConfigAttributes = GenericTyped[TechTreeConfigAttributes]


TypedResourceTokenStats = GenericTyped[TokenStats]


TypedResourceTokenTransaction = GenericTyped[TokenTransaction]


class UnitAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    created_at: str
    lit: bool
    lit_since: date_aliased | None
    manager_uid: str | None
    member_count: int
    name: str
    number: int
    parent: Annotated[str | None, Field(description="The parent unit's id, e.g. matrix-3")]
    qualifying_days: Annotated[
        str, Field(description="Decimal string: a station's count, or the average")
    ]
    state_day: Annotated[
        date_aliased | None,
        Field(description="Last day of the window the state is for"),
    ]
    territory_mint: Annotated[str | None, Field(description="The territory NFT's mint once minted")]
    unit_type: Literal["station", "matrix", "sector", "system"]


class UnitIn(BaseModel):
    idempotency_key: IdempotencyKey = None
    manager_uid: Annotated[str | None, Field(max_length=100, min_length=1)] = None
    name: Annotated[str, Field(max_length=100, min_length=1)]
    number: Annotated[
        int,
        Field(description="The unit's id within its type", ge=1, le=9223372036854776000),
    ]
    parent: Annotated[
        str | None,
        Field(
            description="The parent's id: a station's matrix, a matrix's sector, a sector's system",
            pattern="^(station|matrix|sector|system)-[1-9][0-9]{0,17}$",
        ),
    ] = None
    territory_mint: Annotated[str | None, Field(pattern="^[1-9A-HJ-NP-Za-km-z]{32,44}$")] = None
    unit_type: Literal["station", "matrix", "sector", "system"]


class UnitState(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    bonus_percent: int
    changed: Annotated[bool | None, Field(description="Lit by this request")] = False
    id: str
    last_avg_input: Annotated[str | None, Field(description="Stations: the last day's average")] = (
        None
    )
    lit: bool
    member_count: Annotated[int | None, Field(description="Stations: current members")] = None
    missing_avg_input: str | None = None
    missing_days: str
    missing_members: int | None = None
    name: str
    qualifying_days: Annotated[
        str, Field(description="A station's count, or its stations' average")
    ]
    stations: int
    unit_type: str


class UnitStatsAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    daily: Annotated[
        list[DailyKpi] | None, Field(description="Stations: each day of the window")
    ] = None
    lit: bool
    member_count: int
    mining_input_30d: Annotated[str, Field(description="USDC, decimal string")]
    qualifying_days: Annotated[
        str, Field(description="A station's count, or the stations' average")
    ]
    state_day: date_aliased | None
    station_days: Annotated[
        list[StationSummary] | None,
        Field(description="Higher units: each station under it"),
    ] = None
    stations: int
    unit_type: Literal["station", "matrix", "sector", "system"]
    window_end: date_aliased
    window_start: date_aliased


class UnlockIn(BaseModel):
    idempotency_key: str | None = None
    lock_id: Annotated[str, Field(max_length=64, min_length=1)]
    reason: Annotated[str, Field(examples=["outbid"], max_length=100, min_length=1)]


class UserAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    api_keys_configured: bool
    avatar_url: str | None
    created_at: str
    display_name: str | None
    email: Annotated[str | None, Field(description="only with the `email` scope (or for an admin)")]
    role: str
    uid: str
    updated_at: str
    wallet_address: str | None
