"""Models, part 10 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, ProfileAttribute
from ._models_3 import Capacities, CountMeta
from ._models_4 import (
    GlobalDay,
    LegacyManager,
    LegacyMiningRecord,
    LegacyTeamUnit,
    Level,
    ListMeta,
    ViewMeta,
)
from ._models_5 import PlacementIn
from ._models_6 import Meta, PageMeta
from ._models_7 import ProofIn
from ._models_8 import (
    GenericAttributesIdType,
    TypedResourceApplicationAttrs,
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
    TypedResourceProjectAttributesAttrs,
)

_T0 = TypeVar("_T0")
_T1 = TypeVar("_T1")
_T2 = TypeVar("_T2")
_T3 = TypeVar("_T3")


class WhitelistEntryAttrs(BaseModel):
    add_tx: Annotated[str | None, Field(title="Add Tx")]
    created_at: Annotated[str, Field(title="Created At")]
    created_by: Annotated[str | None, Field(title="Created By")]
    last_tx: Annotated[str | None, Field(title="Last Tx")]
    onchain: Annotated[dict[str, Any] | None, Field(title="Onchain")]
    pda_address: Annotated[str, Field(title="Pda Address")]
    pda_bump: Annotated[int, Field(title="Pda Bump")]
    pending_action: Annotated[str | None, Field(title="Pending Action")]
    project_id: Annotated[int, Field(title="Project Id")]
    project_name: Annotated[str, Field(title="Project Name")]
    remove_tx: Annotated[str | None, Field(title="Remove Tx")]
    status: Annotated[str, Field(title="Status")]
    updated_at: Annotated[str, Field(title="Updated At")]
    wallet_address: Annotated[str, Field(title="Wallet Address")]


class WhitelistRemoved(BaseModel):
    message: Annotated[str, Field(title="Message")]
    project_id: Annotated[int, Field(title="Project Id")]
    remove_tx: Annotated[str | None, Field(title="Remove Tx")]


class GenericDataMeta(BaseModel, Generic[_T0, _T1]):
    data: _T0
    meta: _T1


WhitelistRemovedBody = GenericDataMeta[WhitelistRemoved, Meta]


class WhitelistStatusAttrs(BaseModel):
    add_tx: Annotated[str | None, Field(title="Add Tx")]
    created_at: Annotated[str, Field(title="Created At")]
    created_by: Annotated[str | None, Field(title="Created By")]
    last_tx: Annotated[str | None, Field(title="Last Tx")]
    onchain: Annotated[dict[str, Any] | None, Field(title="Onchain")]
    pda_address: Annotated[str, Field(title="Pda Address")]
    pda_bump: Annotated[int, Field(title="Pda Bump")]
    pending_action: Annotated[str | None, Field(title="Pending Action")]
    project_id: Annotated[int, Field(title="Project Id")]
    project_name: Annotated[str, Field(title="Project Name")]
    remove_tx: Annotated[str | None, Field(title="Remove Tx")]
    status: Annotated[str, Field(title="Status")]
    updated_at: Annotated[str, Field(title="Updated At")]
    wallet_address: Annotated[str, Field(title="Wallet Address")]


class WhitelistStatusIn(BaseModel):
    status: Annotated[Literal["active", "suspended"], Field(title="Status")]


class ApiRoutesAuctionSolanaConfigAttributes(BaseModel):
    auction_duration_seconds: Annotated[int, Field(title="Auction Duration Seconds")]
    authority: Annotated[str, Field(title="Authority")]
    created_at: Annotated[str | None, Field(title="Created At")]
    extension_duration_seconds: Annotated[int, Field(title="Extension Duration Seconds")]
    extension_threshold_seconds: Annotated[int, Field(title="Extension Threshold Seconds")]
    is_initialized: Annotated[bool, Field(title="Is Initialized")]
    is_paused: Annotated[bool, Field(title="Is Paused")]
    mcc_mint: Annotated[str, Field(title="Mcc Mint")]
    min_bid_increment_percent: Annotated[int, Field(title="Min Bid Increment Percent")]
    next_auction_id: Annotated[int, Field(title="Next Auction Id")]
    team_wallet: Annotated[str, Field(title="Team Wallet")]
    territory_nft_program: Annotated[str, Field(title="Territory Nft Program")]
    total_auctions: Annotated[int, Field(title="Total Auctions")]
    total_cancelled: Annotated[int, Field(title="Total Cancelled")]
    total_completed: Annotated[int, Field(title="Total Completed")]
    total_volume: Annotated[str, Field(title="Total Volume")]
    updated_at: Annotated[str | None, Field(title="Updated At")]


class ApiRoutesFragmentConfigAttributes(BaseModel):
    active_buyouts: Annotated[int, Field(title="Active Buyouts")]
    authority: Annotated[str, Field(title="Authority")]
    buyout_duration_seconds: Annotated[int, Field(title="Buyout Duration Seconds")]
    created_at: Annotated[str | None, Field(title="Created At")]
    is_paused: Annotated[bool, Field(title="Is Paused")]
    max_fragments: Annotated[int, Field(title="Max Fragments")]
    min_fragments: Annotated[int, Field(title="Min Fragments")]
    total_fragmented_nfts: Annotated[int, Field(title="Total Fragmented Nfts")]
    updated_at: Annotated[str | None, Field(title="Updated At")]


class ApiRoutesMiningStatsTotals(BaseModel):
    activities: Annotated[int, Field(title="Activities")]
    mcd_amount: Annotated[str, Field(title="Mcd Amount")]
    trade_volume_usdc: Annotated[str, Field(title="Trade Volume Usdc")]


class ApiRoutesTechtreeConfigAttributes(BaseModel):
    levels: Annotated[list[Level], Field(title="Levels")]
    min_avg_input_usdc: Annotated[
        str,
        Field(description="Per member per day, decimal string", title="Min Avg Input Usdc"),
    ]
    min_members: Annotated[int, Field(title="Min Members")]
    min_qualifying_days: Annotated[int, Field(title="Min Qualifying Days")]
    schedule: Annotated[str, Field(description="When the daily job runs", title="Schedule")]
    station_capacity: Annotated[int, Field(title="Station Capacity")]
    window_days: Annotated[int, Field(title="Window Days")]


class ApiRoutesTerritoryTotals(BaseModel):
    matrices: Annotated[int, Field(title="Matrices")]
    sectors: Annotated[int, Field(title="Sectors")]
    stations: Annotated[int, Field(title="Stations")]
    systems: Annotated[int, Field(title="Systems")]


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


class ActivityIn(PlacementIn):
    activity_data: Annotated[
        dict[str, Any],
        Field(
            examples=[{"profit_usdc": 42.5, "trade_count": 12, "trade_volume_usdc": 1500}],
            title="Activity Data",
        ),
    ]
    activity_type: Annotated[
        str,
        Field(examples=["trade"], pattern="^[A-Za-z0-9_.:-]{1,64}$", title="Activity Type"),
    ]
    proof: ProofIn


class CollectionAttributes(BaseModel):
    authority: Annotated[str, Field(title="Authority")]
    capacities: Capacities
    collection_master_edition: Annotated[str, Field(title="Collection Master Edition")]
    collection_metadata: Annotated[str, Field(title="Collection Metadata")]
    collection_mint: Annotated[str, Field(title="Collection Mint")]
    created_at: Annotated[str | None, Field(title="Created At")]
    is_initialized: Annotated[bool, Field(title="Is Initialized")]
    name: Annotated[str, Field(title="Name")]
    symbol: Annotated[str, Field(title="Symbol")]
    totals: ApiRoutesTerritoryTotals
    updated_at: Annotated[str | None, Field(title="Updated At")]


class GenericDataMeta_(BaseModel, Generic[_T0, _T1]):
    data: Annotated[list[_T0], Field(title="Data")]
    meta: _T1


CountedAttributeAttrs = GenericDataMeta_[TypedResourceAttributeAttrs, CountMeta]


CountedProjectAttributesAttrs = GenericDataMeta_[TypedResourceProjectAttributesAttrs, CountMeta]


class FullProfileAttrs(BaseModel):
    """
    The user's base profile (the fields of ``GET /v1/users/{uid}``, those the caller may not
    see set to null) and the project attributes the caller may see.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    project_attributes: Annotated[list[ProfileAttribute], Field(title="Project Attributes")]
    uid: Annotated[str, Field(title="Uid")]


class GlobalAttributes(BaseModel):
    cached_seconds: Annotated[
        int, Field(description="The figures may be this old", title="Cached Seconds")
    ]
    days: Annotated[list[GlobalDay], Field(title="Days")]
    since: Annotated[str, Field(title="Since")]
    totals: ApiRoutesMiningStatsTotals


class LegacyMiningHistory(BaseModel):
    records: Annotated[list[LegacyMiningRecord], Field(title="Records")]
    total: Annotated[int, Field(title="Total")]


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
