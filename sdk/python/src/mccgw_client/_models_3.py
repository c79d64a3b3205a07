"""Models, part 3 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, ConfigDict, Field

from ._models_1 import Attempt, BaseModel, IdempotencyKey
from ._models_2 import BorrowChecks


class CalculateInterestBody(BaseModel):
    accrued_interest: Annotated[
        str | None, Field(description="Interest already accrued (decimal string)")
    ] = "0"
    duration_seconds: Annotated[int | None, Field(ge=0, le=3153600000)] = None
    from_time: Annotated[
        AwareDatetime | None,
        Field(description="With to_time, instead of duration (with an offset, e.g. `Z`)"),
    ] = None
    principal: Annotated[
        str,
        Field(description="Decimal string in the pool asset (MCC)", examples=["100"]),
    ]
    rate_bps: Annotated[
        int | None,
        Field(
            description="Annual rate; omitted = the pool's current rate",
            ge=0,
            le=1000000,
        ),
    ] = None
    to_time: Annotated[AwareDatetime | None, Field(description="With an offset, e.g. `Z`")] = None


class CancelIn(BaseModel):
    idempotency_key: str | None = None
    reason: Annotated[str | None, Field(max_length=200)] = None


class Capacities(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    matrix: int
    sector: int
    station: int
    system: int


class ChainWriteView(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    attempt: int | None
    confirmation_status: str | None
    last_valid_block_height: int | None
    send_count: int | None
    signature: str | None
    status: str


class ClientSecretRollIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    expire_previous_in_seconds: Annotated[
        int | None,
        Field(
            description="How long the current client secret keeps working (0: stops now)",
            ge=0,
            le=604800,
        ),
    ] = 86400
    idempotency_key: IdempotencyKey = None


class Meta(BaseModel):
    api_version: str | None = "v1"
    request_id: str | None = None


class CountMeta(Meta):
    total: int


class DailyKpi(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    avg_input: Annotated[str, Field(description="USDC per member, rounded down to 6 decimals")]
    day: date_aliased
    member_count: int
    mining_input: Annotated[str, Field(description="USDC, decimal string")]
    qualifies: bool


class DayProject(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    activities: int
    date: str
    mcd_amount: Annotated[str, Field(description="MCD, decimal string")]
    project_id: str
    trade_volume_usdc: Annotated[str, Field(description="USDC, decimal string")]


class DeliveryAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    attempt_log: list[Attempt]
    attempts: int
    completed_at: str | None
    created_at: str
    endpoint_id: str
    event_id: str
    event_type: str
    last_error: str | None
    last_status_code: int | None
    next_attempt_at: str | None
    status: Annotated[str, Field(description="pending, succeeded or failed")]


class DriftAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    address: str | None
    chain_balance: str
    created_at: str
    currency: str
    drift: str
    ledger_balance: str
    run_id: str
    user_uid: str


class EndpointAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    created_at: str
    disabled_at: str | None
    disabled_reason: str | None
    events: list[str]
    failing_since: str | None
    status: Annotated[str, Field(description="active, disabled or deleted")]
    updated_at: str
    url: str


class EstimateAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    available_liquidity: str
    checks: BorrowChecks
    collateral_type: str
    collateral_value: str
    decimals: int
    due_at: str | None
    duration: str
    duration_seconds: int
    eligible: bool
    interest_at_due: str
    lending_pool: str
    loan_amount: str
    ltv_bps: int | None
    max_borrow: str
    max_seconds_before_overflow: int | None
    onchain_overflow: bool
    rate_bps_applied: int
    rate_bps_now: int
    rate_bps_post: Annotated[int, Field(description="The rate once this loan is borrowed")]
    total_due: str


class EstimateBorrowBody(BaseModel):
    duration: Literal["three_days", "seven_days", "thirty_days"]
    loan_amount: Annotated[
        str, Field(description="Decimal string in the pool asset", examples=["500"])
    ]
    nft_mint: Annotated[str | None, Field(description="Instead of territory_type")] = None
    territory_type: Literal["station", "matrix", "sector", "system"] | None = None


class FragmentConfigAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    active_buyouts: int
    authority: str
    buyout_duration_seconds: int
    created_at: str | None
    is_paused: bool
    max_fragments: int
    min_fragments: int
    total_fragmented_nfts: int
    updated_at: str | None


class FundsTransferIn(BaseModel):
    amount: Annotated[str, Field(examples=["1.5"])]
    currency: Literal["MCC", "MCD"]
    from_uid: Annotated[str, Field(max_length=100, min_length=1)]
    idempotency_key: str | None = None
    reason: Annotated[str | None, Field(examples=["in_game_trade"], max_length=100)] = None
    reference: dict[str, Any] | None = None
    to_uid: Annotated[str, Field(max_length=100, min_length=1)]


class GlobalDay(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    activities: int
    date: str
    mcd_amount: str
    miners: int
    trade_volume_usdc: str
