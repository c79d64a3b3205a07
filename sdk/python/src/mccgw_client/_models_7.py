"""Models, part 7 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ._models_1 import BaseModel
from ._models_2 import Capacities, DayProject
from ._models_3 import (
    GenericAttributesIdType,
    GlobalDay,
    ItemAuctionDetailAttributes,
    ItemEstimateAttributes,
    ItemInterestAttributes,
    LegacyManager,
    LegacyTeamUnit,
    Level,
    ListMeta,
    LoanAttributes,
    ViewMeta,
)
from ._models_4 import (
    GenericDataMeta,
    GenericMany,
    LpAttributes,
    MccBalance,
    MccPrice,
    McdBalance,
    Meta,
    NftAttributes,
    NftDetailAttributes,
    PageMeta,
    PlacementIn,
    PositionAttributes,
)
from ._models_5 import ProofIn, Resource, StatsAttributes, TokenStats
from ._models_6 import (
    TokenTransaction,
    TypeAmounts,
    TypedResourceAvatarAttributes,
    TypedResourceBaseProfileAttributes,
    TypedResourceBonusAttributes,
    TypedResourceMemberAttributes,
    TypedResourceMembershipAttributes,
    VaultAttributes,
    VaultDetailAttributes,
)


class WalletNftAttributes(NftAttributes):
    custody: Annotated[
        Literal["wallet", "lending_loan", "fragment_vault"],
        Field(
            description="wallet = in the wallet's token account; lending_loan / fragment_vault = escrowed by that program for this wallet (holder is the escrowing account)",
            title="Custody",
        ),
    ]
    holder: Annotated[str | None, Field(title="Holder")]
    owner_is_stale: Annotated[bool, Field(title="Owner Is Stale")]


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


ApiViewsCommonItemConfigAttributes1 = GenericAttributesIdType[
    ApiRoutesAuctionSolanaConfigAttributes
]


ApiViewsCommonItemConfigAttributes2 = GenericAttributesIdType[ApiRoutesFragmentConfigAttributes]


ApiViewsCommonOneConfigAttributes1 = GenericDataMeta[ApiViewsCommonItemConfigAttributes1, ViewMeta]


ApiViewsCommonOneConfigAttributes2 = GenericDataMeta[ApiViewsCommonItemConfigAttributes2, ViewMeta]


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


class Envelope(BaseModel):
    data: Annotated[Resource | list[Resource] | dict[str, Any], Field(title="Data")]
    meta: Meta | None = None


class GlobalAttributes(BaseModel):
    cached_seconds: Annotated[
        int, Field(description="The figures may be this old", title="Cached Seconds")
    ]
    days: Annotated[list[GlobalDay], Field(title="Days")]
    since: Annotated[str, Field(title="Since")]
    totals: ApiRoutesMiningStatsTotals


ItemCollectionAttributes = GenericAttributesIdType[CollectionAttributes]


ItemLoanAttributes = GenericAttributesIdType[LoanAttributes]


ItemLpAttributes = GenericAttributesIdType[LpAttributes]


ItemMccBalance = GenericAttributesIdType[MccBalance]


ItemMccPrice = GenericAttributesIdType[MccPrice]


ItemMcdBalance = GenericAttributesIdType[McdBalance]


ItemNftAttributes = GenericAttributesIdType[NftAttributes]


ItemNftDetailAttributes = GenericAttributesIdType[NftDetailAttributes]


ItemPositionAttributes = GenericAttributesIdType[PositionAttributes]


ItemStatsAttributes = GenericAttributesIdType[StatsAttributes]


ItemTokenStats = GenericAttributesIdType[TokenStats]


ItemTokenTransaction = GenericAttributesIdType[TokenTransaction]


ItemVaultAttributes = GenericAttributesIdType[VaultAttributes]


ItemVaultDetailAttributes = GenericAttributesIdType[VaultDetailAttributes]


ItemWalletNftAttributes = GenericAttributesIdType[WalletNftAttributes]


class LegacyTeam(BaseModel):
    manager: LegacyManager | None
    station: LegacyTeamUnit | None
    unit: LegacyTeamUnit | None


ManyLoanAttributes = GenericMany[ItemLoanAttributes, ListMeta]


ManyMemberAttributes = GenericMany[TypedResourceMemberAttributes, PageMeta]


ManyTokenTransaction = GenericMany[ItemTokenTransaction, PageMeta]


ManyVaultAttributes = GenericMany[ItemVaultAttributes, ListMeta]


ManyWalletNftAttributes = GenericMany[ItemWalletNftAttributes, ListMeta]


class MiningStatsAttributes(BaseModel):
    days: Annotated[list[DayProject], Field(title="Days")]
    since: Annotated[str, Field(title="Since")]
    totals: ApiRoutesMiningStatsTotals


OneAuctionDetailAttributes = GenericDataMeta[ItemAuctionDetailAttributes, ViewMeta]


OneAvatarAttributes = GenericDataMeta[TypedResourceAvatarAttributes, Meta]


OneBaseProfileAttributes = GenericDataMeta[TypedResourceBaseProfileAttributes, Meta]


OneBonusAttributes = GenericDataMeta[TypedResourceBonusAttributes, Meta]


OneCollectionAttributes = GenericDataMeta[ItemCollectionAttributes, ViewMeta]


OneEstimateAttributes = GenericDataMeta[ItemEstimateAttributes, ViewMeta]


OneInterestAttributes = GenericDataMeta[ItemInterestAttributes, ViewMeta]


OneLoanAttributes = GenericDataMeta[ItemLoanAttributes, ViewMeta]


OneLpAttributes = GenericDataMeta[ItemLpAttributes, ViewMeta]


OneMccBalance = GenericDataMeta[ItemMccBalance, Meta]


OneMccPrice = GenericDataMeta[ItemMccPrice, Meta]


OneMcdBalance = GenericDataMeta[ItemMcdBalance, Meta]


OneMembershipAttributes = GenericDataMeta[TypedResourceMembershipAttributes, Meta]


OneNftAttributes = GenericDataMeta[ItemNftAttributes, ViewMeta]


OneNftDetailAttributes = GenericDataMeta[ItemNftDetailAttributes, ViewMeta]


OnePositionAttributes = GenericDataMeta[ItemPositionAttributes, ViewMeta]


OneStatsAttributes = GenericDataMeta[ItemStatsAttributes, ViewMeta]


OneTokenStats = GenericDataMeta[ItemTokenStats, Meta]


OneVaultDetailAttributes = GenericDataMeta[ItemVaultDetailAttributes, ViewMeta]


class OracleAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    authority: Annotated[str, Field(title="Authority")]
    collateral_values: TypeAmounts
    last_update: Annotated[str | None, Field(title="Last Update")]
    max_borrow: TypeAmounts
