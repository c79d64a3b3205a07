"""Models, part 6 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from ._models_1 import AvatarAttributes, BaseModel, BaseProfileAttributes
from ._models_2 import BonusAttributes, BuyoutAttributes, DailyKpi
from ._models_3 import GenericAttributesIdType
from ._models_4 import MemberAttributes, MembershipAttributes, Parent
from ._models_5 import StationSummary


class TokenTransaction(BaseModel):
    amount: Annotated[str, Field(title="Amount")]
    counterparty: Annotated[
        str | None,
        Field(description="user uid, sending wallet, or project", title="Counterparty"),
    ]
    created_at: Annotated[str, Field(title="Created At")]
    currency: Annotated[str, Field(title="Currency")]
    direction: Annotated[Literal["in", "out"], Field(title="Direction")]
    reference: Annotated[str | None, Field(title="Reference")]
    signature: Annotated[str | None, Field(title="Signature")]
    status: Annotated[str, Field(title="Status")]
    type: Annotated[
        str,
        Field(
            description="deposit, transfer_in, transfer_out, settlement_in, settlement_out, mining_reward, credit, debit",
            title="Type",
        ),
    ]


class TransferRequestIn(BaseModel):
    amount: Annotated[str, Field(examples=["12.5"], title="Amount")]
    currency: Annotated[Literal["MCC", "MCD"], Field(title="Currency")]
    from_uid: Annotated[str, Field(max_length=100, min_length=1, title="From Uid")]
    idempotency_key: Annotated[str | None, Field(title="Idempotency Key")] = None
    reference: Annotated[
        dict[str, Any] | None,
        Field(
            description="Identifiers of the business object; `lock_id` settles that fund lock",
            examples=[{"auction_id": "42", "lock_id": "lk_..."}],
            title="Reference",
        ),
    ] = None
    requires_onchain: Annotated[
        bool | None,
        Field(
            description="Recorded; every transfer settles on chain (the ledger mirrors custody)",
            title="Requires Onchain",
        ),
    ] = True
    to_uid: Annotated[str, Field(max_length=100, min_length=1, title="To Uid")]
    transfer_type: Annotated[
        str,
        Field(
            examples=["auction_settlement"],
            max_length=64,
            min_length=1,
            title="Transfer Type",
        ),
    ]


class TypeAmounts(BaseModel):
    matrix: Annotated[str, Field(title="Matrix")]
    sector: Annotated[str, Field(title="Sector")]
    station: Annotated[str, Field(title="Station")]
    system: Annotated[str, Field(title="System")]


TypedResourceAvatarAttributes = GenericAttributesIdType[AvatarAttributes]


TypedResourceBaseProfileAttributes = GenericAttributesIdType[BaseProfileAttributes]


TypedResourceBonusAttributes = GenericAttributesIdType[BonusAttributes]


TypedResourceMemberAttributes = GenericAttributesIdType[MemberAttributes]


TypedResourceMembershipAttributes = GenericAttributesIdType[MembershipAttributes]


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
