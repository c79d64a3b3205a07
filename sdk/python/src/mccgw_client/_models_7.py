"""Models, part 7 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ._models_1 import BaseModel
from ._models_2 import Capacities, DayProject, GlobalDay
from ._models_3 import (
    ItemAuctionDetailAttributes,
    ItemEstimateAttributes,
    ItemInterestAttributes,
    LegacyManager,
    LegacyTeamUnit,
    ListMeta,
    LoanAttributes,
    LpAttributes,
    MccBalance,
)
from ._models_4 import (
    MccPrice,
    McdBalance,
    Meta,
    NftAttributes,
    NftDetailAttributes,
    PageMeta,
    PositionAttributes,
)
from ._models_5 import (
    ProofIn,
    Resource,
    StatsAttributes,
    TokenStats,
    TokenTransaction,
    TypeAmounts,
    TypedResourceAvatarAttributes,
    TypedResourceBaseProfileAttributes,
    TypedResourceBonusAttributes,
    TypedResourceMemberAttributes,
    TypedResourceMembershipAttributes,
)
from ._models_6 import (
    ApiRoutesMiningStatsTotals,
    ApiRoutesTerritoryTotals,
    VaultAttributes,
    VaultDetailAttributes,
    ViewMeta,
    WalletNftAttributes,
)


class ActivityIn(BaseModel):
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
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
    proof: ProofIn
    user_uid: Annotated[str, Field(max_length=100, min_length=1, title="User Uid")]


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


class ItemCollectionAttributes(BaseModel):
    attributes: CollectionAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemLoanAttributes(BaseModel):
    attributes: LoanAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemLpAttributes(BaseModel):
    attributes: LpAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemMccBalance(BaseModel):
    attributes: MccBalance
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemMccPrice(BaseModel):
    attributes: MccPrice
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemMcdBalance(BaseModel):
    attributes: McdBalance
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemNftAttributes(BaseModel):
    attributes: NftAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemNftDetailAttributes(BaseModel):
    attributes: NftDetailAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemPositionAttributes(BaseModel):
    attributes: PositionAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemStatsAttributes(BaseModel):
    attributes: StatsAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemTokenStats(BaseModel):
    attributes: TokenStats
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemTokenTransaction(BaseModel):
    attributes: TokenTransaction
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemVaultAttributes(BaseModel):
    attributes: VaultAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemVaultDetailAttributes(BaseModel):
    attributes: VaultDetailAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ItemWalletNftAttributes(BaseModel):
    attributes: WalletNftAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class LegacyTeam(BaseModel):
    manager: LegacyManager | None
    station: LegacyTeamUnit | None
    unit: LegacyTeamUnit | None


class ManyLoanAttributes(BaseModel):
    data: Annotated[list[ItemLoanAttributes], Field(title="Data")]
    meta: ListMeta


class ManyMemberAttributes(BaseModel):
    data: Annotated[list[TypedResourceMemberAttributes], Field(title="Data")]
    meta: PageMeta


class ManyTokenTransaction(BaseModel):
    data: Annotated[list[ItemTokenTransaction], Field(title="Data")]
    meta: PageMeta


class ManyVaultAttributes(BaseModel):
    data: Annotated[list[ItemVaultAttributes], Field(title="Data")]
    meta: ListMeta


class ManyWalletNftAttributes(BaseModel):
    data: Annotated[list[ItemWalletNftAttributes], Field(title="Data")]
    meta: ListMeta


class MiningStatsAttributes(BaseModel):
    days: Annotated[list[DayProject], Field(title="Days")]
    since: Annotated[str, Field(title="Since")]
    totals: ApiRoutesMiningStatsTotals


class OneAuctionDetailAttributes(BaseModel):
    data: ItemAuctionDetailAttributes
    meta: ViewMeta


class OneAvatarAttributes(BaseModel):
    data: TypedResourceAvatarAttributes
    meta: Meta


class OneBaseProfileAttributes(BaseModel):
    data: TypedResourceBaseProfileAttributes
    meta: Meta


class OneBonusAttributes(BaseModel):
    data: TypedResourceBonusAttributes
    meta: Meta


class OneCollectionAttributes(BaseModel):
    data: ItemCollectionAttributes
    meta: ViewMeta


class OneEstimateAttributes(BaseModel):
    data: ItemEstimateAttributes
    meta: ViewMeta


class OneInterestAttributes(BaseModel):
    data: ItemInterestAttributes
    meta: ViewMeta


class OneLoanAttributes(BaseModel):
    data: ItemLoanAttributes
    meta: ViewMeta


class OneLpAttributes(BaseModel):
    data: ItemLpAttributes
    meta: ViewMeta


class OneMccBalance(BaseModel):
    data: ItemMccBalance
    meta: Meta


class OneMccPrice(BaseModel):
    data: ItemMccPrice
    meta: Meta


class OneMcdBalance(BaseModel):
    data: ItemMcdBalance
    meta: Meta


class OneMembershipAttributes(BaseModel):
    data: TypedResourceMembershipAttributes
    meta: Meta


class OneNftAttributes(BaseModel):
    data: ItemNftAttributes
    meta: ViewMeta


class OneNftDetailAttributes(BaseModel):
    data: ItemNftDetailAttributes
    meta: ViewMeta


class OnePositionAttributes(BaseModel):
    data: ItemPositionAttributes
    meta: ViewMeta


class OneStatsAttributes(BaseModel):
    data: ItemStatsAttributes
    meta: ViewMeta


class OneTokenStats(BaseModel):
    data: ItemTokenStats
    meta: Meta


class OneVaultDetailAttributes(BaseModel):
    data: ItemVaultDetailAttributes
    meta: ViewMeta


class OracleAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    authority: Annotated[str, Field(title="Authority")]
    collateral_values: TypeAmounts
    last_update: Annotated[str | None, Field(title="Last Update")]
    max_borrow: TypeAmounts


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
