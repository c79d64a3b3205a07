"""Models, part 4 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import AwareDatetime, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_2 import Meta
from ._models_3 import ViewMeta


class ListMeta(ViewMeta):
    page: int
    per_page: int
    total: int


class LoanAttributes(BaseModel):
    account: str
    accrued_interest: str
    borrow_rate_at_origination_bps: int
    borrower: str
    collateral_type: str
    collateral_value: str
    created_at: str | None
    due_at: str | None
    duration: str
    interest_since_update: str
    is_liquidatable: bool
    is_overdue: bool
    last_interest_update: str | None
    lending_pool: str
    liquidated_at: str | None
    ltv_bps: int | None
    nft_mint: str
    onchain_overflow: bool
    principal: str
    rate_bps_now: int
    repaid_at: str | None
    seconds_remaining: int
    status: str
    total_debt: str


class LoansByStatus(BaseModel):
    active: int
    liquidated: int
    pending: int
    repaid: int


class LockAttributes(BaseModel):
    amount: Annotated[str, Field(description="Decimal string")]
    available_balance: Annotated[
        str | None,
        Field(description="After a lock or unlock only: the user's available balance"),
    ] = None
    currency: Literal["MCC", "MCD"]
    locked_until: str | None
    reason: str
    reference_id: str | None
    status: Annotated[str, Field(description="locked, unlocked, settled or expired")]
    unlock_reason: Annotated[str | None, Field(description="After an unlock only")] = None
    user_uid: str


UserUid: TypeAlias = Annotated[str, Field(max_length=100, min_length=1)]


class LockIn(BaseModel):
    amount: Annotated[
        str,
        Field(
            description="Decimal string, > 0, at most as many decimals as the currency's mint has",
            examples=["12.5"],
        ),
    ]
    currency: Annotated[Literal["MCC", "MCD"], Field(examples=["MCC"])]
    expires_at: Annotated[
        AwareDatetime,
        Field(description="When the lock ends by itself (future, with offset)"),
    ]
    idempotency_key: IdempotencyKey = None
    reason: Annotated[str, Field(examples=["auction_bid"], max_length=100, min_length=1)]
    reference_id: Annotated[str | None, Field(examples=["auction-42"], max_length=200)] = None
    user_uid: UserUid


class LpAttributes(BaseModel):
    exchange_rate: str
    lending_pool: str
    lp_balance: str
    lp_mint: str
    share_of_pool: str
    token_accounts: list[str]
    value: str
    wallet: str


class MccBalance(BaseModel):
    available_balance: str
    deposit_address: str
    deposit_owner: str
    locked_balance: Annotated[str, Field(description="sum of active fund locks")]
    pending_out: str
    total_balance: str
    updated_at: str | None


class MccPrice(BaseModel):
    base_price_usdc: Annotated[str | None, Field(description="mean of the last closes (up to 180)")]
    buyback_price_usdc: Annotated[
        str | None, Field(description="base + floor(base * premium / 10000)")
    ]
    close_at: Annotated[str | None, Field(description="the newest close")]
    onchain_updated_at: str | None
    points: Annotated[int, Field(description="closes in the mean (180 once that many exist)")]
    premium_bps: int
    price_usdc: Annotated[str, Field(description="the price the rule gives now")]
    source: Literal["market", "admin", "default"]
    tx_signature: Annotated[str | None, Field(description="the last on-chain update_price")]
    updated_at: Annotated[str, Field(description="when the source value was observed or set")]


class McdBalance(BaseModel):
    available_balance: str
    deposit_address: Annotated[
        str, Field(description="the user's custody token account: send here")
    ]
    deposit_owner: Annotated[
        str, Field(description="owner of the deposit address (the custody authority)")
    ]
    frozen_balance: Annotated[str, Field(description="sum of active fund locks")]
    pending_out: Annotated[str, Field(description="outgoing transfers not yet final")]
    total_balance: Annotated[
        str, Field(description="finalized custody balance as booked (decimal)")
    ]
    updated_at: str | None


class McdRewardAttrs(BaseModel):
    """
    An ``mcd_reward``: a user's confirmed rewards of one UTC day and project.
    """

    activities: int
    amount: str
    date: str
    project_id: str
    project_name: str | None
    source: str


class MemberAttributes(BaseModel):
    display_name: str | None
    joined_at: str
    station: str
    uid: str


class MembershipAttributes(BaseModel):
    joined_at: str | None
    left_at: str | None
    moved: Annotated[bool, Field(description="False when nothing changed")]
    station: str | None
    user_uid: str


class MiningBatchMeta(Meta):
    accepted: int
    page: int
    per_page: int
    refused: int
    total: int
    webhook_note: str
    webhook_url: str | None


class MiningRecordAttrs(BaseModel):
    """
    A ``mining_record``: one confirmed reward.
    """

    activity_type: str
    block_height: int | None
    confirmed_at: str | None
    date: str | None
    mcd_amount: str
    project_id: str
    status: str
    tx_signature: str | None
    user_uid: str
