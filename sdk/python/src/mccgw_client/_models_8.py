"""Models, part 8 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_2 import (
    AuthorizationAttributes,
    AvatarAttributes,
    BaseProfileAttributes,
    BidAttributes,
    BonusAttributes,
)
from ._models_3 import (
    DailyKpi,
    DeliveryAttributes,
    DriftAttributes,
    EndpointAttributes,
    EstimateAttributes,
    FragmentConfigAttributes,
    HolderAttributes,
    HoldingAttributes,
    InterestAttributes,
)
from ._models_4 import LoanAttributes, LockAttributes, LpAttributes, MccBalanceAttributes
from ._models_5 import (
    MccPriceAttributes,
    McdBalanceAttributes,
    McdRewardAttributes,
    MemberAttributes,
    MembershipAttributes,
    MiningRecordAttributes,
    MiningSubmissionAttributes,
    NftAttributes,
    NftDetailAttributes,
    OAuthClientAttributes,
)
from ._models_6 import (
    PositionAttributes,
    ProjectAttributeAttributes,
    ProjectAttributeSetAttributes,
    PublicUserAttributes,
    RegisteredEndpointAttributes,
    RegisteredProjectAttributes,
)
from ._models_7 import (
    GenericTyped,
    RetryAttributes,
    StationSummary,
    StatsAttributes,
    TechTreeConfigAttributes,
    TokenStatsAttributes,
    TokenTransactionAttributes,
)

TypedResourceAuthorizationAttributes = GenericTyped[AuthorizationAttributes]


TypedResourceAvatarAttributes = GenericTyped[AvatarAttributes]


TypedResourceBaseProfileAttributes = GenericTyped[BaseProfileAttributes]


TypedResourceBidAttributes = GenericTyped[BidAttributes]


TypedResourceBonusAttributes = GenericTyped[BonusAttributes]


TypedResourceDeliveryAttributes = GenericTyped[DeliveryAttributes]


TypedResourceDriftAttributes = GenericTyped[DriftAttributes]


TypedResourceEndpointAttributes = GenericTyped[EndpointAttributes]


TypedResourceEstimateAttributes = GenericTyped[EstimateAttributes]


TypedResourceFragmentConfigAttributes = GenericTyped[FragmentConfigAttributes]


TypedResourceHolderAttributes = GenericTyped[HolderAttributes]


TypedResourceHoldingAttributes = GenericTyped[HoldingAttributes]


TypedResourceInterestAttributes = GenericTyped[InterestAttributes]


TypedResourceLoanAttributes = GenericTyped[LoanAttributes]


TypedResourceLockAttributes = GenericTyped[LockAttributes]


TypedResourceLpAttributes = GenericTyped[LpAttributes]


TypedResourceMccBalanceAttributes = GenericTyped[MccBalanceAttributes]


TypedResourceMccPriceAttributes = GenericTyped[MccPriceAttributes]


TypedResourceMcdBalanceAttributes = GenericTyped[McdBalanceAttributes]


TypedResourceMcdRewardAttributes = GenericTyped[McdRewardAttributes]


TypedResourceMemberAttributes = GenericTyped[MemberAttributes]


TypedResourceMembershipAttributes = GenericTyped[MembershipAttributes]


TypedResourceMiningRecordAttributes = GenericTyped[MiningRecordAttributes]


TypedResourceMiningSubmissionAttributes = GenericTyped[MiningSubmissionAttributes]


TypedResourceNftAttributes = GenericTyped[NftAttributes]


TypedResourceNftDetailAttributes = GenericTyped[NftDetailAttributes]


TypedResourceOAuthClientAttributes = GenericTyped[OAuthClientAttributes]


TypedResourcePositionAttributes = GenericTyped[PositionAttributes]


TypedResourceProjectAttributeAttributes = GenericTyped[ProjectAttributeAttributes]


TypedResourceProjectAttributeSetAttributes = GenericTyped[ProjectAttributeSetAttributes]


TypedResourcePublicUserAttributes = GenericTyped[PublicUserAttributes]


TypedResourceRegisteredEndpointAttributes = GenericTyped[RegisteredEndpointAttributes]


TypedResourceRegisteredProjectAttributes = GenericTyped[RegisteredProjectAttributes]


TypedResourceRetryAttributes = GenericTyped[RetryAttributes]


TypedResourceStatsAttributes = GenericTyped[StatsAttributes]


TypedResourceTechTreeConfigAttributes = GenericTyped[TechTreeConfigAttributes]


TypedResourceTokenStatsAttributes = GenericTyped[TokenStatsAttributes]


TypedResourceTokenTransactionAttributes = GenericTyped[TokenTransactionAttributes]


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


Email: TypeAlias = Annotated[
    str | None, Field(description="only with the `email` scope (or for an admin)")
]
