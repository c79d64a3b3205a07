"""Models, part 4 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Generic, Literal, TypeVar

from pydantic import AwareDatetime, ConfigDict, Field, RootModel

from ._models_1 import BaseModel
from ._models_2 import Liquidity
from ._models_3 import (
    ItemAddressBalance,
    ItemAuctionAttributes,
    ItemBidAttributes,
    ItemHolderAttributes,
    ItemHoldingAttributes,
    ListMeta,
    LoanAttributes,
    ReferenceId,
)

_T0 = TypeVar("_T0")
_T1 = TypeVar("_T1")
_T2 = TypeVar("_T2")
_T3 = TypeVar("_T3")


class PlacementIn(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
    user_uid: Annotated[str, Field(max_length=100, min_length=1, title="User Uid")]


class LockIn(PlacementIn):
    amount: Annotated[
        str,
        Field(
            description="Decimal string, > 0, at most 9 decimals",
            examples=["12.5"],
            title="Amount",
        ),
    ]
    currency: Annotated[Literal["MCC", "MCD"], Field(examples=["MCC"], title="Currency")]
    expires_at: Annotated[
        AwareDatetime,
        Field(
            description="When the lock ends by itself (future, with offset)",
            title="Expires At",
        ),
    ]
    reason: Annotated[
        str,
        Field(examples=["auction_bid"], max_length=100, min_length=1, title="Reason"),
    ]
    reference_id: Annotated[
        ReferenceId | None, Field(examples=["auction-42"], title="Reference Id")
    ] = None


class LpAttributes(BaseModel):
    exchange_rate: Annotated[str, Field(title="Exchange Rate")]
    lending_pool: Annotated[str, Field(title="Lending Pool")]
    lp_balance: Annotated[str, Field(title="Lp Balance")]
    lp_mint: Annotated[str, Field(title="Lp Mint")]
    share_of_pool: Annotated[str, Field(title="Share Of Pool")]
    token_accounts: Annotated[list[str], Field(title="Token Accounts")]
    value: Annotated[str, Field(title="Value")]
    wallet: Annotated[str, Field(title="Wallet")]


class GenericMany(BaseModel, Generic[_T0, _T1]):
    data: Annotated[list[_T0], Field(title="Data")]
    meta: _T1


ManyAuctionAttributes = GenericMany[ItemAuctionAttributes, ListMeta]


ManyBidAttributes = GenericMany[ItemBidAttributes, ListMeta]


ManyHolderAttributes = GenericMany[ItemHolderAttributes, ListMeta]


ManyHoldingAttributes = GenericMany[ItemHoldingAttributes, ListMeta]


class MccBalance(BaseModel):
    available_balance: Annotated[str, Field(title="Available Balance")]
    deposit_address: Annotated[str, Field(title="Deposit Address")]
    deposit_owner: Annotated[str, Field(title="Deposit Owner")]
    locked_balance: Annotated[
        str, Field(description="sum of active fund locks", title="Locked Balance")
    ]
    pending_out: Annotated[str, Field(title="Pending Out")]
    total_balance: Annotated[str, Field(title="Total Balance")]
    updated_at: Annotated[str | None, Field(title="Updated At")]


class MccPrice(BaseModel):
    base_price_usdc: Annotated[
        str | None,
        Field(description="mean of the last closes (up to 180)", title="Base Price Usdc"),
    ]
    buyback_price_usdc: Annotated[
        str | None,
        Field(
            description="base + floor(base * premium / 10000)",
            title="Buyback Price Usdc",
        ),
    ]
    close_at: Annotated[str | None, Field(description="the newest close", title="Close At")]
    onchain_updated_at: Annotated[str | None, Field(title="Onchain Updated At")]
    points: Annotated[
        int,
        Field(description="closes in the mean (180 once that many exist)", title="Points"),
    ]
    premium_bps: Annotated[int, Field(title="Premium Bps")]
    price_usdc: Annotated[
        str, Field(description="the price the rule gives now", title="Price Usdc")
    ]
    source: Annotated[Literal["market", "admin", "default"], Field(title="Source")]
    tx_signature: Annotated[
        str | None,
        Field(description="the last on-chain update_price", title="Tx Signature"),
    ]
    updated_at: Annotated[
        str,
        Field(description="when the source value was observed or set", title="Updated At"),
    ]


class McdBalance(BaseModel):
    available_balance: Annotated[str, Field(title="Available Balance")]
    deposit_address: Annotated[
        str,
        Field(
            description="the user's custody token account: send here",
            title="Deposit Address",
        ),
    ]
    deposit_owner: Annotated[
        str,
        Field(
            description="owner of the deposit address (the custody authority)",
            title="Deposit Owner",
        ),
    ]
    frozen_balance: Annotated[
        str, Field(description="sum of active fund locks", title="Frozen Balance")
    ]
    pending_out: Annotated[
        str, Field(description="outgoing transfers not yet final", title="Pending Out")
    ]
    total_balance: Annotated[
        str,
        Field(
            description="finalized custody balance as booked (decimal)",
            title="Total Balance",
        ),
    ]
    updated_at: Annotated[str | None, Field(title="Updated At")]


class MemberAttributes(BaseModel):
    display_name: Annotated[str | None, Field(title="Display Name")]
    joined_at: Annotated[str, Field(title="Joined At")]
    station: Annotated[str, Field(title="Station")]
    uid: Annotated[str, Field(title="Uid")]


class MembershipAttributes(BaseModel):
    joined_at: Annotated[str | None, Field(title="Joined At")]
    left_at: Annotated[str | None, Field(title="Left At")]
    moved: Annotated[bool, Field(description="False when nothing changed", title="Moved")]
    station: Annotated[str | None, Field(title="Station")]
    user_uid: Annotated[str, Field(title="User Uid")]


class Meta(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    request_id: Annotated[str | None, Field(title="Request Id")] = None


class Parent(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="The parent's id: a station's matrix, a matrix's sector, a sector's system",
            pattern="^(station|matrix|sector|system)-[1-9][0-9]{0,17}$",
            title="Parent",
        ),
    ]


class NftAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    created_at: Annotated[str | None, Field(title="Created At")]
    current_members: Annotated[int, Field(title="Current Members")]
    is_auctioning: Annotated[bool, Field(title="Is Auctioning")]
    is_frozen: Annotated[bool, Field(title="Is Frozen")]
    mint: Annotated[str | None, Field(title="Mint")]
    name: Annotated[str, Field(title="Name")]
    parent_id: Annotated[int | None, Field(title="Parent Id")]
    recorded_owner: Annotated[str, Field(title="Recorded Owner")]
    status: Annotated[Literal["minted", "reserved"], Field(title="Status")]
    territory_id: Annotated[int, Field(title="Territory Id")]
    territory_type: Annotated[str, Field(title="Territory Type")]
    updated_at: Annotated[str | None, Field(title="Updated At")]


class NftDetailAttributes(NftAttributes):
    escrowed_in: Annotated[
        Literal["lending_loan", "fragment_vault"] | None, Field(title="Escrowed In")
    ]
    holder: Annotated[str | None, Field(title="Holder")]
    holder_token_account: Annotated[str | None, Field(title="Holder Token Account")]
    owner_is_stale: Annotated[bool, Field(title="Owner Is Stale")]


class GenericDataMeta(BaseModel, Generic[_T0, _T1]):
    data: _T0
    meta: _T1


OneAddressBalance = GenericDataMeta[ItemAddressBalance, Meta]


class PageMeta(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    page: Annotated[int, Field(title="Page")]
    per_page: Annotated[int, Field(title="Per Page")]
    request_id: Annotated[str | None, Field(title="Request Id")] = None
    total: Annotated[int, Field(title="Total")]


class PositionAttributes(BaseModel):
    active_loans: Annotated[int, Field(title="Active Loans")]
    liquidity: Liquidity
    loans: Annotated[list[LoanAttributes], Field(title="Loans")]
    total_debt: Annotated[str, Field(title="Total Debt")]
    wallet: Annotated[str, Field(title="Wallet")]
