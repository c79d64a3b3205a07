"""Models, part 7 of 9 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeAlias

from pydantic import Field

from ._models_1 import _T0, _T1, BaseModel, IdempotencyKey
from ._models_2 import Capacities, CountMeta, GlobalDay, Meta
from ._models_3 import (
    LegacyManager,
    LegacyMiningRecord,
    LegacyTeamUnit,
    Level,
    ListMeta,
    UserUid,
    ViewMeta,
)
from ._models_4 import PageMeta, ProfileAttribute, ProofIn
from ._models_5 import (
    GenericAttributesIdType,
    TypedResourceApplicationAttrs,
    TypedResourceAttributeAttrs,
)
from ._models_6 import (
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
    TypedResourceProjectAttributesAttrs,
    TypedResourceStuckTransferAttrs,
    TypedResourceTokenTransaction,
)


class WhitelistEntryAttrs(BaseModel):
    add_tx: str | None
    created_at: str
    created_by: str | None
    last_tx: str | None
    onchain: dict[str, Any] | None
    pda_address: str
    pda_bump: int
    pending_action: str | None
    project_id: int
    project_name: str
    remove_tx: str | None
    status: str
    updated_at: str
    wallet_address: str


class WhitelistRemoved(BaseModel):
    message: str
    project_id: int
    remove_tx: str | None


class GenericDataMeta(BaseModel, Generic[_T0, _T1]):
    data: _T0
    meta: _T1


WhitelistRemovedBody = GenericDataMeta[WhitelistRemoved, Meta]


class WhitelistStatusAttrs(WhitelistEntryAttrs):
    pass


class WhitelistStatusIn(BaseModel):
    status: Literal["active", "suspended"]


class ApiRoutesAuctionSolanaConfigAttributes(BaseModel):
    auction_duration_seconds: int
    authority: str
    created_at: str | None
    extension_duration_seconds: int
    extension_threshold_seconds: int
    is_initialized: bool
    is_paused: bool
    mcc_mint: str
    min_bid_increment_percent: int
    next_auction_id: int
    team_wallet: str
    territory_nft_program: str
    total_auctions: int
    total_cancelled: int
    total_completed: int
    total_volume: str
    updated_at: str | None


class ApiRoutesFragmentConfigAttributes(BaseModel):
    active_buyouts: int
    authority: str
    buyout_duration_seconds: int
    created_at: str | None
    is_paused: bool
    max_fragments: int
    min_fragments: int
    total_fragmented_nfts: int
    updated_at: str | None


class ApiRoutesMiningStatsTotals(BaseModel):
    activities: int
    mcd_amount: str
    trade_volume_usdc: str


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


class GenericDataMeta_(BaseModel, Generic[_T0, _T1]):
    data: list[_T0]
    meta: _T1


CountedAttributeAttrs = GenericDataMeta_[TypedResourceAttributeAttrs, CountMeta]


CountedProjectAttributesAttrs = GenericDataMeta_[TypedResourceProjectAttributesAttrs, CountMeta]


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


ListingAuthorizationAttributes = GenericDataMeta_[TypedResourceAuthorizationAttributes, CountMeta]


ManyApplicationAttrs = GenericDataMeta_[TypedResourceApplicationAttrs, PageMeta]


ManyAuctionAttributes = GenericDataMeta_[TypedResourceAuctionAttributes, ListMeta]


ManyBidAttributes = GenericDataMeta_[TypedResourceBidAttributes, ListMeta]


ManyDeliveryAttributes = GenericDataMeta_[TypedResourceDeliveryAttributes, PageMeta]


ManyDriftAttrs = GenericDataMeta_[TypedResourceDriftAttrs, PageMeta]


ManyEndpointAttributes = GenericDataMeta_[TypedResourceEndpointAttributes, PageMeta]


ManyHolderAttributes = GenericDataMeta_[TypedResourceHolderAttributes, ListMeta]


ManyHoldingAttributes = GenericDataMeta_[TypedResourceHoldingAttributes, ListMeta]


ManyLoanAttributes = GenericDataMeta_[TypedResourceLoanAttributes, ListMeta]


ManyLockAttributes = GenericDataMeta_[TypedResourceLockAttributes, PageMeta]


ManyMcdRewardAttrs = GenericDataMeta_[TypedResourceMcdRewardAttrs, PageMeta]


ManyMemberAttributes = GenericDataMeta_[TypedResourceMemberAttributes, PageMeta]


ManyMiningRecordAttrs = GenericDataMeta_[TypedResourceMiningRecordAttrs, PageMeta]


ManyStuckTransferAttrs = GenericDataMeta_[TypedResourceStuckTransferAttrs, PageMeta]


ManyTokenTransaction = GenericDataMeta_[TypedResourceTokenTransaction, PageMeta]
