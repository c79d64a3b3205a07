"""Models, part 8 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Any, Generic, Literal

from pydantic import Field

from ._models_1 import _T0, _T1, BaseModel, IdempotencyKey
from ._models_2 import BuyoutAttributes, DailyKpi, Meta
from ._models_5 import NftAttributes
from ._models_6 import StationSummary


class UnitAttributes(BaseModel):
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
    api_keys_configured: bool
    avatar_url: str | None
    created_at: str
    display_name: str | None
    email: Annotated[str | None, Field(description="only with the `email` scope (or for an admin)")]
    role: str
    uid: str
    updated_at: str
    wallet_address: str | None


class UserProfileAttributes(UserAttributes):
    station_id: int | None
    unit_id: int | None
    username: str | None


class VaultAttributes(BaseModel):
    account: str
    circulating_fragments_recorded: str
    created_at: str | None
    fragment_mint: str | None
    fragment_name: str
    fragment_symbol: str
    nft_mint: str
    original_owner: str
    redeemed_at: str | None
    status: str
    total_fragments: str


class VaultDetailAttributes(VaultAttributes):
    buyout: BuyoutAttributes | None
    live_supply: str | None


class WalletNftAttributes(NftAttributes):
    custody: Annotated[
        Literal["wallet", "lending_loan", "fragment_vault"],
        Field(
            description="wallet = in the wallet's token account; lending_loan / fragment_vault = escrowed by that program for this wallet (holder is the escrowing account)"
        ),
    ]
    holder: str | None
    owner_is_stale: bool


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
