"""Models, part 5 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AwareDatetime, ConfigDict, Field, RootModel

from ._models_1 import BaseModel


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


class LockAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    amount: Annotated[str, Field(description="Decimal string", title="Amount")]
    available_balance: Annotated[
        str | None,
        Field(
            description="After a lock or unlock only: the user's available balance",
            title="Available Balance",
        ),
    ] = None
    currency: Annotated[Literal["MCC", "MCD"], Field(title="Currency")]
    locked_until: Annotated[str | None, Field(title="Locked Until")]
    reason: Annotated[str, Field(title="Reason")]
    reference_id: Annotated[str | None, Field(title="Reference Id")]
    status: Annotated[
        str, Field(description="locked, unlocked, settled or expired", title="Status")
    ]
    unlock_reason: Annotated[
        str | None, Field(description="After an unlock only", title="Unlock Reason")
    ] = None
    user_uid: Annotated[str, Field(title="User Uid")]


class ReferenceId(RootModel[str]):
    root: Annotated[str, Field(examples=["auction-42"], max_length=200, title="Reference Id")]


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


class McdRewardAttrs(BaseModel):
    """
    An ``mcd_reward``: a user's confirmed rewards of one UTC day and project.
    """

    activities: Annotated[int, Field(title="Activities")]
    amount: Annotated[str, Field(title="Amount")]
    date: Annotated[str, Field(title="Date")]
    project_id: Annotated[str, Field(title="Project Id")]
    project_name: Annotated[str | None, Field(title="Project Name")]
    source: Annotated[str, Field(title="Source")]


class MemberAttributes(BaseModel):
    display_name: Annotated[str | None, Field(title="Display Name")]
    joined_at: Annotated[str, Field(title="Joined At")]
    station: Annotated[str, Field(title="Station")]
    uid: Annotated[str, Field(title="Uid")]
