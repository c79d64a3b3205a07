"""Models, part 9 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel

from ._models_1 import BaseModel
from ._models_2 import BuyoutAttributes
from ._models_3 import DailyKpi
from ._models_6 import NftAttributes, Parent
from ._models_7 import StationSummary
from ._models_8 import GenericAttributesIdType, TokenStats, TokenTransaction

TypedResourceTokenStats = GenericAttributesIdType[TokenStats]


TypedResourceTokenTransaction = GenericAttributesIdType[TokenTransaction]


class UnitAttributes(BaseModel):
    created_at: Annotated[str, Field(title="Created At")]
    lit: Annotated[bool, Field(title="Lit")]
    lit_since: Annotated[date_aliased | None, Field(title="Lit Since")]
    manager_uid: Annotated[str | None, Field(title="Manager Uid")]
    member_count: Annotated[int, Field(title="Member Count")]
    name: Annotated[str, Field(title="Name")]
    number: Annotated[int, Field(title="Number")]
    parent: Annotated[
        str | None,
        Field(description="The parent unit's id, e.g. matrix-3", title="Parent"),
    ]
    qualifying_days: Annotated[
        str,
        Field(
            description="Decimal string: a station's count, or the average",
            title="Qualifying Days",
        ),
    ]
    state_day: Annotated[
        date_aliased | None,
        Field(description="Last day of the window the state is for", title="State Day"),
    ]
    territory_mint: Annotated[
        str | None,
        Field(description="The territory NFT's mint once minted", title="Territory Mint"),
    ]
    unit_type: Annotated[Literal["station", "matrix", "sector", "system"], Field(title="Unit Type")]


class ManagerUid(RootModel[str]):
    root: Annotated[str, Field(max_length=100, min_length=1, title="Manager Uid")]


class TerritoryMint(RootModel[str]):
    root: Annotated[str, Field(pattern="^[1-9A-HJ-NP-Za-km-z]{32,44}$", title="Territory Mint")]


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


class UserAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_keys_configured: Annotated[bool, Field(title="Api Keys Configured")]
    avatar_url: Annotated[str | None, Field(title="Avatar Url")]
    created_at: Annotated[str, Field(title="Created At")]
    display_name: Annotated[str | None, Field(title="Display Name")]
    email: Annotated[
        str | None,
        Field(description="only with the `email` scope (or for an admin)", title="Email"),
    ]
    role: Annotated[str, Field(title="Role")]
    uid: Annotated[str, Field(title="Uid")]
    updated_at: Annotated[str, Field(title="Updated At")]
    wallet_address: Annotated[str | None, Field(title="Wallet Address")]


class UserProfileAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_keys_configured: Annotated[bool, Field(title="Api Keys Configured")]
    avatar_url: Annotated[str | None, Field(title="Avatar Url")]
    created_at: Annotated[str, Field(title="Created At")]
    display_name: Annotated[str | None, Field(title="Display Name")]
    email: Annotated[
        str | None,
        Field(description="only with the `email` scope (or for an admin)", title="Email"),
    ]
    role: Annotated[str, Field(title="Role")]
    station_id: Annotated[int | None, Field(title="Station Id")]
    uid: Annotated[str, Field(title="Uid")]
    unit_id: Annotated[int | None, Field(title="Unit Id")]
    updated_at: Annotated[str, Field(title="Updated At")]
    username: Annotated[str | None, Field(title="Username")]
    wallet_address: Annotated[str | None, Field(title="Wallet Address")]


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


class VaultDetailAttributes(VaultAttributes):
    buyout: BuyoutAttributes | None
    live_supply: Annotated[str | None, Field(title="Live Supply")]


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
