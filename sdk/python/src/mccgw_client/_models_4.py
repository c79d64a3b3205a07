"""Models, part 4 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import AwareDatetime, ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_3 import Meta


class LegacyError(BaseModel):
    """
    The legacy error body (not a problem document): ``{error, message, code}``.
    """

    code: int
    error: str
    message: str


class LegacyManager(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    name: str | None
    uid: str


class LegacyMccBalanceBody(BaseModel):
    """
    The legacy plain form: JSON numbers (whole tokens with a fraction), no envelope.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    available_balance: float
    locked_balance: float
    pending_rewards: Annotated[
        float, Field(description="MCD of mining submissions not yet confirmed")
    ]
    total_balance: float


class LegacyMiningRecord(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: float
    date: str
    project: str
    status: str


class LegacyProfileBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    created_at: str
    email: str | None
    role: str
    station_id: int | None
    uid: str
    unit_id: int | None


class LegacyTeamUnit(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    id: int
    member_count: int
    name: str


class Level(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    bonus_percent: int
    cumulative_percent: int
    lighting_condition: str
    unit_type: str


class LightIn(BaseModel):
    idempotency_key: IdempotencyKey = None


class Liquidity(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    exchange_rate: str
    lp_balance: str
    share_of_pool: str
    value: str


class ViewMeta(Meta):
    address: Annotated[
        str | None, Field(description="The account the resource was decoded from")
    ] = None
    max_age_seconds: Annotated[float, Field(description="Snapshots are re-read at most this often")]
    program: Annotated[str | None, Field(description="The program whose accounts a list scans")] = (
        None
    )
    slot: Annotated[int, Field(description="The slot the data was read at (confirmed commitment)")]


class ListMeta(ViewMeta):
    page: int
    per_page: int
    total: int


class LoanAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
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
    model_config = ConfigDict(
        extra="forbid",
    )
    active: int
    liquidated: int
    pending: int
    repaid: int


Amount: TypeAlias = Annotated[str, Field(description="Decimal string")]


class LockAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: Amount
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
        Field(description="Decimal string, > 0, at most 9 decimals", examples=["12.5"]),
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
    model_config = ConfigDict(
        extra="forbid",
    )
    exchange_rate: str
    lending_pool: str
    lp_balance: str
    lp_mint: str
    share_of_pool: str
    token_accounts: list[str]
    value: str
    wallet: str


class MccBalanceAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    available_balance: str
    deposit_address: str
    deposit_owner: str
    locked_balance: Annotated[str, Field(description="sum of active fund locks")]
    pending_out: str
    total_balance: str
    updated_at: str | None
