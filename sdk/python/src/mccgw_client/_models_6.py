"""Models, part 6 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Literal

from pydantic import Field

from ._models_1 import BaseModel
from ._models_2 import BuyoutAttributes, DailyKpi
from ._models_3 import Level
from ._models_4 import Parent
from ._models_5 import ManagerUid, StationSummary, TerritoryMint


class UnitIn(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
    manager_uid: Annotated[ManagerUid | None, Field(title="Manager Uid")] = None
    name: Annotated[str, Field(max_length=100, min_length=1, title="Name")]
    number: Annotated[
        int,
        Field(
            description="The unit's id within its type",
            ge=1,
            le=9223372036854776000,
            title="Number",
        ),
    ]
    parent: Annotated[
        Parent | None,
        Field(
            description="The parent's id: a station's matrix, a matrix's sector, a sector's system",
            title="Parent",
        ),
    ] = None
    territory_mint: Annotated[TerritoryMint | None, Field(title="Territory Mint")] = None
    unit_type: Annotated[Literal["station", "matrix", "sector", "system"], Field(title="Unit Type")]


class UnitState(BaseModel):
    bonus_percent: Annotated[int, Field(title="Bonus Percent")]
    changed: Annotated[bool | None, Field(description="Lit by this request", title="Changed")] = (
        False
    )
    id: Annotated[str, Field(title="Id")]
    last_avg_input: Annotated[
        str | None,
        Field(description="Stations: the last day's average", title="Last Avg Input"),
    ] = None
    lit: Annotated[bool, Field(title="Lit")]
    member_count: Annotated[
        int | None, Field(description="Stations: current members", title="Member Count")
    ] = None
    missing_avg_input: Annotated[str | None, Field(title="Missing Avg Input")] = None
    missing_days: Annotated[str, Field(title="Missing Days")]
    missing_members: Annotated[int | None, Field(title="Missing Members")] = None
    name: Annotated[str, Field(title="Name")]
    qualifying_days: Annotated[
        str,
        Field(
            description="A station's count, or its stations' average",
            title="Qualifying Days",
        ),
    ]
    stations: Annotated[int, Field(title="Stations")]
    unit_type: Annotated[str, Field(title="Unit Type")]


class UnitStatsAttributes(BaseModel):
    daily: Annotated[
        list[DailyKpi] | None,
        Field(description="Stations: each day of the window", title="Daily"),
    ] = None
    lit: Annotated[bool, Field(title="Lit")]
    member_count: Annotated[int, Field(title="Member Count")]
    mining_input_30d: Annotated[
        str, Field(description="USDC, decimal string", title="Mining Input 30D")
    ]
    qualifying_days: Annotated[
        str,
        Field(
            description="A station's count, or the stations' average",
            title="Qualifying Days",
        ),
    ]
    state_day: Annotated[date_aliased | None, Field(title="State Day")]
    station_days: Annotated[
        list[StationSummary] | None,
        Field(description="Higher units: each station under it", title="Station Days"),
    ] = None
    stations: Annotated[int, Field(title="Stations")]
    unit_type: Annotated[Literal["station", "matrix", "sector", "system"], Field(title="Unit Type")]
    window_end: Annotated[date_aliased, Field(title="Window End")]
    window_start: Annotated[date_aliased, Field(title="Window Start")]


class UnlockIn(BaseModel):
    idempotency_key: Annotated[str | None, Field(title="Idempotency Key")] = None
    lock_id: Annotated[str, Field(max_length=64, min_length=1, title="Lock Id")]
    reason: Annotated[str, Field(examples=["outbid"], max_length=100, min_length=1, title="Reason")]


class VaultAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    circulating_fragments_recorded: Annotated[str, Field(title="Circulating Fragments Recorded")]
    created_at: Annotated[str | None, Field(title="Created At")]
    fragment_mint: Annotated[str | None, Field(title="Fragment Mint")]
    fragment_name: Annotated[str, Field(title="Fragment Name")]
    fragment_symbol: Annotated[str, Field(title="Fragment Symbol")]
    nft_mint: Annotated[str, Field(title="Nft Mint")]
    original_owner: Annotated[str, Field(title="Original Owner")]
    redeemed_at: Annotated[str | None, Field(title="Redeemed At")]
    status: Annotated[str, Field(title="Status")]
    total_fragments: Annotated[str, Field(title="Total Fragments")]


class VaultDetailAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    buyout: BuyoutAttributes | None
    circulating_fragments_recorded: Annotated[str, Field(title="Circulating Fragments Recorded")]
    created_at: Annotated[str | None, Field(title="Created At")]
    fragment_mint: Annotated[str | None, Field(title="Fragment Mint")]
    fragment_name: Annotated[str, Field(title="Fragment Name")]
    fragment_symbol: Annotated[str, Field(title="Fragment Symbol")]
    live_supply: Annotated[str | None, Field(title="Live Supply")]
    nft_mint: Annotated[str, Field(title="Nft Mint")]
    original_owner: Annotated[str, Field(title="Original Owner")]
    redeemed_at: Annotated[str | None, Field(title="Redeemed At")]
    status: Annotated[str, Field(title="Status")]
    total_fragments: Annotated[str, Field(title="Total Fragments")]


class ViewMeta(BaseModel):
    address: Annotated[
        str | None,
        Field(description="The account the resource was decoded from", title="Address"),
    ] = None
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    max_age_seconds: Annotated[
        float,
        Field(
            description="Snapshots are re-read at most this often",
            title="Max Age Seconds",
        ),
    ]
    program: Annotated[
        str | None,
        Field(description="The program whose accounts a list scans", title="Program"),
    ] = None
    request_id: Annotated[str | None, Field(title="Request Id")] = None
    slot: Annotated[
        int,
        Field(
            description="The slot the data was read at (confirmed commitment)",
            title="Slot",
        ),
    ]


class WalletNftAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    created_at: Annotated[str | None, Field(title="Created At")]
    current_members: Annotated[int, Field(title="Current Members")]
    custody: Annotated[
        Literal["wallet", "lending_loan", "fragment_vault"],
        Field(
            description="wallet = in the wallet's token account; lending_loan / fragment_vault = escrowed by that program for this wallet (holder is the escrowing account)",
            title="Custody",
        ),
    ]
    holder: Annotated[str | None, Field(title="Holder")]
    is_auctioning: Annotated[bool, Field(title="Is Auctioning")]
    is_frozen: Annotated[bool, Field(title="Is Frozen")]
    mint: Annotated[str | None, Field(title="Mint")]
    name: Annotated[str, Field(title="Name")]
    owner_is_stale: Annotated[bool, Field(title="Owner Is Stale")]
    parent_id: Annotated[int | None, Field(title="Parent Id")]
    recorded_owner: Annotated[str, Field(title="Recorded Owner")]
    status: Annotated[Literal["minted", "reserved"], Field(title="Status")]
    territory_id: Annotated[int, Field(title="Territory Id")]
    territory_type: Annotated[str, Field(title="Territory Type")]
    updated_at: Annotated[str | None, Field(title="Updated At")]


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


class ApiViewsCommonItemConfigAttributes1(BaseModel):
    attributes: ApiRoutesAuctionSolanaConfigAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ApiViewsCommonItemConfigAttributes2(BaseModel):
    attributes: ApiRoutesFragmentConfigAttributes
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class ApiViewsCommonOneConfigAttributes1(BaseModel):
    data: ApiViewsCommonItemConfigAttributes1
    meta: ViewMeta


class ApiViewsCommonOneConfigAttributes2(BaseModel):
    data: ApiViewsCommonItemConfigAttributes2
    meta: ViewMeta
