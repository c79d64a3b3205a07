"""Models, part 3 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import Field, RootModel

from ._models_1 import (
    AddressBalance,
    AuctionAttributes,
    AuctionDetailAttributes,
    BaseModel,
    BidAttributes,
)
from ._models_2 import EstimateAttributes

_T0 = TypeVar("_T0")
_T1 = TypeVar("_T1")
_T2 = TypeVar("_T2")
_T3 = TypeVar("_T3")


class EstimateBorrowBody(BaseModel):
    duration: Annotated[Literal["three_days", "seven_days", "thirty_days"], Field(title="Duration")]
    loan_amount: Annotated[
        str,
        Field(
            description="Decimal string in the pool asset",
            examples=["500"],
            title="Loan Amount",
        ),
    ]
    nft_mint: Annotated[
        str | None, Field(description="Instead of territory_type", title="Nft Mint")
    ] = None
    territory_type: Annotated[
        Literal["station", "matrix", "sector", "system"] | None,
        Field(title="Territory Type"),
    ] = None


class Reason1(RootModel[str]):
    root: Annotated[str, Field(examples=["in_game_trade"], max_length=100, title="Reason")]


class FundsTransferIn(BaseModel):
    amount: Annotated[str, Field(examples=["1.5"], title="Amount")]
    currency: Annotated[Literal["MCC", "MCD"], Field(title="Currency")]
    from_uid: Annotated[str, Field(max_length=100, min_length=1, title="From Uid")]
    idempotency_key: Annotated[str | None, Field(title="Idempotency Key")] = None
    reason: Annotated[Reason1 | None, Field(examples=["in_game_trade"], title="Reason")] = None
    reference: Annotated[dict[str, Any] | None, Field(title="Reference")] = None
    to_uid: Annotated[str, Field(max_length=100, min_length=1, title="To Uid")]


class GlobalDay(BaseModel):
    activities: Annotated[int, Field(title="Activities")]
    date: Annotated[str, Field(title="Date")]
    mcd_amount: Annotated[str, Field(title="Mcd Amount")]
    miners: Annotated[int, Field(title="Miners")]
    trade_volume_usdc: Annotated[str, Field(title="Trade Volume Usdc")]


class HolderAttributes(BaseModel):
    amount: Annotated[str, Field(title="Amount")]
    is_buyout_escrow: Annotated[bool, Field(title="Is Buyout Escrow")]
    owner: Annotated[str, Field(title="Owner")]
    share: Annotated[str, Field(title="Share")]
    token_account: Annotated[str, Field(title="Token Account")]


class HoldingAttributes(BaseModel):
    amount: Annotated[str, Field(title="Amount")]
    fragment_mint: Annotated[str, Field(title="Fragment Mint")]
    fragment_symbol: Annotated[str, Field(title="Fragment Symbol")]
    nft_mint: Annotated[str, Field(title="Nft Mint")]
    share: Annotated[str, Field(title="Share")]
    token_account: Annotated[str, Field(title="Token Account")]
    vault: Annotated[str, Field(title="Vault")]
    vault_status: Annotated[str, Field(title="Vault Status")]


class InterestAttributes(BaseModel):
    decimals: Annotated[int, Field(title="Decimals")]
    duration_seconds: Annotated[int, Field(title="Duration Seconds")]
    interest: Annotated[
        str,
        Field(
            description="floor(floor(principal*rate*dt/10000)/31536000)",
            title="Interest",
        ),
    ]
    max_seconds_before_overflow: Annotated[int | None, Field(title="Max Seconds Before Overflow")]
    onchain_overflow: Annotated[
        bool,
        Field(
            description="principal*rate*dt exceeds 2^64-1: the program would fail (6031)",
            title="Onchain Overflow",
        ),
    ]
    principal: Annotated[str, Field(title="Principal")]
    prior_accrued_interest: Annotated[str, Field(title="Prior Accrued Interest")]
    rate_bps: Annotated[
        int,
        Field(
            description="The rate applied: min(rate, 10000) as loans cap it",
            title="Rate Bps",
        ),
    ]
    rate_source: Annotated[Literal["request", "pool"], Field(title="Rate Source")]
    total_debt: Annotated[str, Field(title="Total Debt")]


class GenericAttributesIdType(BaseModel, Generic[_T0]):
    attributes: _T0
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


ItemAddressBalance = GenericAttributesIdType[AddressBalance]


ItemAuctionAttributes = GenericAttributesIdType[AuctionAttributes]


ItemAuctionDetailAttributes = GenericAttributesIdType[AuctionDetailAttributes]


ItemBidAttributes = GenericAttributesIdType[BidAttributes]


ItemEstimateAttributes = GenericAttributesIdType[EstimateAttributes]


ItemHolderAttributes = GenericAttributesIdType[HolderAttributes]


ItemHoldingAttributes = GenericAttributesIdType[HoldingAttributes]


ItemInterestAttributes = GenericAttributesIdType[InterestAttributes]


class LegacyManager(BaseModel):
    name: Annotated[str | None, Field(title="Name")]
    uid: Annotated[str, Field(title="Uid")]


class LegacyMccBalance(BaseModel):
    """
    The legacy plain form: JSON numbers (whole tokens with a fraction), no envelope.
    """

    available_balance: Annotated[float, Field(title="Available Balance")]
    locked_balance: Annotated[float, Field(title="Locked Balance")]
    pending_rewards: Annotated[
        float,
        Field(
            description="MCD of mining submissions not yet confirmed",
            title="Pending Rewards",
        ),
    ]
    total_balance: Annotated[float, Field(title="Total Balance")]


class LegacyTeamUnit(BaseModel):
    id: Annotated[int, Field(title="Id")]
    member_count: Annotated[int, Field(title="Member Count")]
    name: Annotated[str, Field(title="Name")]


class Level(BaseModel):
    bonus_percent: Annotated[int, Field(title="Bonus Percent")]
    cumulative_percent: Annotated[int, Field(title="Cumulative Percent")]
    lighting_condition: Annotated[str, Field(title="Lighting Condition")]
    unit_type: Annotated[str, Field(title="Unit Type")]


class LightIn(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None


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


class ListMeta(ViewMeta):
    page: Annotated[int, Field(title="Page")]
    per_page: Annotated[int, Field(title="Per Page")]
    total: Annotated[int, Field(title="Total")]


class LoanAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    accrued_interest: Annotated[str, Field(title="Accrued Interest")]
    borrow_rate_at_origination_bps: Annotated[int, Field(title="Borrow Rate At Origination Bps")]
    borrower: Annotated[str, Field(title="Borrower")]
    collateral_type: Annotated[str, Field(title="Collateral Type")]
    collateral_value: Annotated[str, Field(title="Collateral Value")]
    created_at: Annotated[str | None, Field(title="Created At")]
    due_at: Annotated[str | None, Field(title="Due At")]
    duration: Annotated[str, Field(title="Duration")]
    interest_since_update: Annotated[str, Field(title="Interest Since Update")]
    is_liquidatable: Annotated[bool, Field(title="Is Liquidatable")]
    is_overdue: Annotated[bool, Field(title="Is Overdue")]
    last_interest_update: Annotated[str | None, Field(title="Last Interest Update")]
    lending_pool: Annotated[str, Field(title="Lending Pool")]
    liquidated_at: Annotated[str | None, Field(title="Liquidated At")]
    ltv_bps: Annotated[int | None, Field(title="Ltv Bps")]
    nft_mint: Annotated[str, Field(title="Nft Mint")]
    onchain_overflow: Annotated[bool, Field(title="Onchain Overflow")]
    principal: Annotated[str, Field(title="Principal")]
    rate_bps_now: Annotated[int, Field(title="Rate Bps Now")]
    repaid_at: Annotated[str | None, Field(title="Repaid At")]
    seconds_remaining: Annotated[int, Field(title="Seconds Remaining")]
    status: Annotated[str, Field(title="Status")]
    total_debt: Annotated[str, Field(title="Total Debt")]


class LoansByStatus(BaseModel):
    active: Annotated[int, Field(title="Active")]
    liquidated: Annotated[int, Field(title="Liquidated")]
    pending: Annotated[int, Field(title="Pending")]
    repaid: Annotated[int, Field(title="Repaid")]


class ReferenceId(RootModel[str]):
    root: Annotated[str, Field(examples=["auction-42"], max_length=200, title="Reference Id")]
