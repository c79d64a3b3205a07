"""Models, part 4 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_3 import Meta


class HolderAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: str
    is_buyout_escrow: bool
    owner: str
    share: str
    token_account: str


class HoldingAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: str
    fragment_mint: str
    fragment_symbol: str
    nft_mint: str
    share: str
    token_account: str
    vault: str
    vault_status: str


class InterestAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    decimals: int
    duration_seconds: int
    interest: Annotated[str, Field(description="floor(floor(principal*rate*dt/10000)/31536000)")]
    max_seconds_before_overflow: int | None
    onchain_overflow: Annotated[
        bool,
        Field(description="principal*rate*dt exceeds 2^64-1: the program would fail (6031)"),
    ]
    principal: str
    prior_accrued_interest: str
    rate_bps: Annotated[
        int, Field(description="The rate applied: min(rate, 10000) as loans cap it")
    ]
    rate_source: Literal["request", "pool"]
    total_debt: str


class Introspection(BaseModel):
    """
    RFC 7662: ``active`` always; the rest only for an active token.
    """

    active: bool
    aud: str | list[str] | None = None
    client_id: str | None = None
    exp: int | None = None
    iat: int | None = None
    iss: str | None = None
    scope: str | None = None
    sub: str | None = None
    token_type: str | None = None
    username: str | None = None


class Jwks(BaseModel):
    keys: list[dict[str, Any]]


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


class LegacyMccBalance(BaseModel):
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


class LegacyProfile(BaseModel):
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
