"""Models, part 9 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_2 import Capacities, CountMeta, DayProject, Meta
from ._models_3 import GlobalDay, LegacyManager, LegacyMiningRecord, LegacyTeamUnit, Level
from ._models_4 import ListMeta, UserUid, ViewMeta
from ._models_5 import MiningWebhookMeta, PageMeta, ProfileAttribute, ProofIn
from ._models_7 import (
    GenericAttributesIdType,
    TypedResourceAddressBalance,
    TypedResourceAdminProjectAttrs,
    TypedResourceApiSecretRolledAttrs,
    TypedResourceApplicationAttrs,
    TypedResourceApprovedAttrs,
    TypedResourceAttributeAttrs,
    TypedResourceAuctionAttributes,
    TypedResourceAuthorizationAttributes,
    TypedResourceBidAttributes,
    TypedResourceDeliveryAttributes,
    TypedResourceDriftAttrs,
    TypedResourceEndpointAttributes,
    TypedResourceHolderAttributes,
    TypedResourceHoldingAttributes,
    TypedResourceLoanAttributes,
    TypedResourceLockAttributes,
    TypedResourceMcdRewardAttrs,
    TypedResourceMemberAttributes,
    TypedResourceMiningRecordAttrs,
    TypedResourceMiningSubmissionAttrs,
    TypedResourceProjectAttributesAttrs,
    TypedResourceStuckTransferAttrs,
    TypedResourceTokenTransaction,
)
from ._models_8 import (
    ApiRoutesAuctionSolanaConfigAttributes,
    ApiRoutesFragmentConfigAttributes,
    ApiRoutesMiningStatsTotals,
    GenericDataMeta,
)


class ApiRoutesTechtreeConfigAttributes(BaseModel):
    levels: list[Level]
    min_avg_input_usdc: Annotated[str, Field(description="Per member per day, decimal string")]
    min_members: int
    min_qualifying_days: int
    schedule: Annotated[str, Field(description="When the daily job runs")]
    station_capacity: int
    window_days: int


class ApiRoutesTerritoryTotals(BaseModel):
    matrices: int
    sectors: int
    stations: int
    systems: int


ApiTypedTypedResourceConfigAttributes1 = GenericAttributesIdType[ApiRoutesTechtreeConfigAttributes]


ApiTypedTypedResourceConfigAttributes2 = GenericAttributesIdType[
    ApiRoutesAuctionSolanaConfigAttributes
]


ApiTypedTypedResourceConfigAttributes3 = GenericAttributesIdType[ApiRoutesFragmentConfigAttributes]


ApiViewsCommonOneConfigAttributes1 = GenericDataMeta[
    ApiTypedTypedResourceConfigAttributes2, ViewMeta
]


ApiViewsCommonOneConfigAttributes2 = GenericDataMeta[
    ApiTypedTypedResourceConfigAttributes3, ViewMeta
]


class ActivityIn(BaseModel):
    activity_data: Annotated[
        dict[str, Any],
        Field(examples=[{"profit_usdc": 42.5, "trade_count": 12, "trade_volume_usdc": 1500}]),
    ]
    activity_type: Annotated[str, Field(examples=["trade"], pattern="^[A-Za-z0-9_.:-]{1,64}$")]
    idempotency_key: IdempotencyKey = None
    proof: ProofIn
    user_uid: UserUid


class CollectionAttributes(BaseModel):
    authority: str
    capacities: Capacities
    collection_master_edition: str
    collection_metadata: str
    collection_mint: str
    created_at: str | None
    is_initialized: bool
    name: str
    symbol: str
    totals: ApiRoutesTerritoryTotals
    updated_at: str | None


CountedAttributeAttrs = GenericDataMeta[list[TypedResourceAttributeAttrs], CountMeta]


CountedProjectAttributesAttrs = GenericDataMeta[
    list[TypedResourceProjectAttributesAttrs], CountMeta
]


EventType: TypeAlias = Literal[
    "mining.activity.verified",
    "mining.reward.confirmed",
    "funds.locked",
    "funds.unlocked",
    "transfer.completed",
    "transfer.failed",
    "funds.deposited",
]


class EndpointIn(BaseModel):
    events: Annotated[
        list[EventType],
        Field(examples=[["mining.reward.confirmed"]], min_length=1),
    ]
    idempotency_key: IdempotencyKey = None
    secret: Annotated[
        str | None,
        Field(
            description="Signing secret; omitted = one is generated and shown once in the response",
            max_length=256,
            min_length=16,
        ),
    ] = None
    url: Annotated[str, Field(examples=["https://game.example/hooks/mccgw"], max_length=2000)]


class EndpointPatch(BaseModel):
    enabled: Annotated[
        bool | None,
        Field(description="true re-enables a disabled endpoint (its pending deliveries resume)"),
    ] = None
    events: Annotated[
        list[EventType] | None,
        Field(min_length=1),
    ] = None
    idempotency_key: str | None = None
    secret: Annotated[str | None, Field(max_length=256, min_length=16)] = None
    url: Annotated[str | None, Field(max_length=2000)] = None


class FullProfileAttrs(BaseModel):
    """
    The user's base profile (the fields of ``GET /v1/users/{uid}``, those the caller may not
    see set to null) and the project attributes the caller may see.
    """

    project_attributes: list[ProfileAttribute]
    uid: str


class GlobalAttributes(BaseModel):
    cached_seconds: Annotated[int, Field(description="The figures may be this old")]
    days: list[GlobalDay]
    since: str
    totals: ApiRoutesMiningStatsTotals


class LegacyMiningHistory(BaseModel):
    records: list[LegacyMiningRecord]
    total: int


class LegacyTeam(BaseModel):
    manager: LegacyManager | None
    station: LegacyTeamUnit | None
    unit: LegacyTeamUnit | None


ListingAuthorizationAttributes = GenericDataMeta[
    list[TypedResourceAuthorizationAttributes], CountMeta
]


ManyAdminProjectAttrs = GenericDataMeta[list[TypedResourceAdminProjectAttrs], PageMeta]


ManyApplicationAttrs = GenericDataMeta[list[TypedResourceApplicationAttrs], PageMeta]


ManyAuctionAttributes = GenericDataMeta[list[TypedResourceAuctionAttributes], ListMeta]


ManyBidAttributes = GenericDataMeta[list[TypedResourceBidAttributes], ListMeta]


ManyDeliveryAttributes = GenericDataMeta[list[TypedResourceDeliveryAttributes], PageMeta]


ManyDriftAttrs = GenericDataMeta[list[TypedResourceDriftAttrs], PageMeta]


ManyEndpointAttributes = GenericDataMeta[list[TypedResourceEndpointAttributes], PageMeta]


ManyHolderAttributes = GenericDataMeta[list[TypedResourceHolderAttributes], ListMeta]


ManyHoldingAttributes = GenericDataMeta[list[TypedResourceHoldingAttributes], ListMeta]


ManyLoanAttributes = GenericDataMeta[list[TypedResourceLoanAttributes], ListMeta]


ManyLockAttributes = GenericDataMeta[list[TypedResourceLockAttributes], PageMeta]


ManyMcdRewardAttrs = GenericDataMeta[list[TypedResourceMcdRewardAttrs], PageMeta]


ManyMemberAttributes = GenericDataMeta[list[TypedResourceMemberAttributes], PageMeta]


ManyMiningRecordAttrs = GenericDataMeta[list[TypedResourceMiningRecordAttrs], PageMeta]


ManyStuckTransferAttrs = GenericDataMeta[list[TypedResourceStuckTransferAttrs], PageMeta]


ManyTokenTransaction = GenericDataMeta[list[TypedResourceTokenTransaction], PageMeta]


class MiningBatchItemAttrs(BaseModel):
    """
    One item of a batch: its own HTTP-like status, the submission or an RFC 7807 problem.
    """

    activity: TypedResourceMiningSubmissionAttrs | None
    error: dict[str, Any] | None = None
    idempotency_key: Any
    status: int


class MiningStatsAttributes(BaseModel):
    days: list[DayProject]
    since: str
    totals: ApiRoutesMiningStatsTotals


MiningSubmitBody = GenericDataMeta[TypedResourceMiningSubmissionAttrs, MiningWebhookMeta]


OneAddressBalance = GenericDataMeta[TypedResourceAddressBalance, Meta]


OneAdminProjectAttrs = GenericDataMeta[TypedResourceAdminProjectAttrs, Meta]


OneApiSecretRolledAttrs = GenericDataMeta[TypedResourceApiSecretRolledAttrs, Meta]


OneApplicationAttrs = GenericDataMeta[TypedResourceApplicationAttrs, Meta]


OneApprovedAttrs = GenericDataMeta[TypedResourceApprovedAttrs, Meta]


OneAttributeAttrs = GenericDataMeta[TypedResourceAttributeAttrs, Meta]
