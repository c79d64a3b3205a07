"""Models, part 2 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, RootModel

from ._models_1 import BaseModel, Reason, Url


class BonusAttributes(BaseModel):
    bonus_multiplier: Annotated[
        float,
        Field(
            description="Applied to every mining reward: 1.3 = +30 %",
            title="Bonus Multiplier",
        ),
    ]
    bonus_percent: Annotated[int, Field(title="Bonus Percent")]


class Liquidity(BaseModel):
    exchange_rate: Annotated[str, Field(title="Exchange Rate")]
    lp_balance: Annotated[str, Field(title="Lp Balance")]
    share_of_pool: Annotated[str, Field(title="Share Of Pool")]
    value: Annotated[str, Field(title="Value")]


class BorrowChecks(BaseModel):
    amount_at_least_minimum: Annotated[bool, Field(title="Amount At Least Minimum")]
    amount_at_most_maximum: Annotated[bool, Field(title="Amount At Most Maximum")]
    borrows_not_paused: Annotated[bool, Field(title="Borrows Not Paused")]
    collateral_value_set: Annotated[bool, Field(title="Collateral Value Set")]
    pool_accrual_ok: Annotated[bool, Field(title="Pool Accrual Ok")]
    pool_active: Annotated[bool, Field(title="Pool Active")]
    within_available_liquidity: Annotated[bool, Field(title="Within Available Liquidity")]
    within_max_borrow: Annotated[bool, Field(title="Within Max Borrow")]


class BuyoutAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    completed_at: Annotated[str | None, Field(title="Completed At")]
    expires_at: Annotated[str | None, Field(title="Expires At")]
    fragments_accepted: Annotated[str, Field(title="Fragments Accepted")]
    fragments_to_buy: Annotated[str, Field(title="Fragments To Buy")]
    initiated_at: Annotated[str | None, Field(title="Initiated At")]
    initiator: Annotated[str, Field(title="Initiator")]
    payment_collected: Annotated[str, Field(title="Payment Collected")]
    payment_mint: Annotated[str, Field(title="Payment Mint")]
    price_per_fragment: Annotated[str, Field(title="Price Per Fragment")]
    status: Annotated[str, Field(title="Status")]
    total_buyout_amount: Annotated[str, Field(title="Total Buyout Amount")]


class DurationSeconds(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=3153600000, title="Duration Seconds")]


class RateBps(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="Annual rate; omitted = the pool's current rate",
            ge=0,
            le=1000000,
            title="Rate Bps",
        ),
    ]


class CalculateInterestBody(BaseModel):
    accrued_interest: Annotated[
        str | None,
        Field(
            description="Interest already accrued (decimal string)",
            title="Accrued Interest",
        ),
    ] = "0"
    duration_seconds: Annotated[DurationSeconds | None, Field(title="Duration Seconds")] = None
    from_time: Annotated[
        AwareDatetime | None,
        Field(description="With to_time, instead of duration", title="From Time"),
    ] = None
    principal: Annotated[
        str,
        Field(
            description="Decimal string in the pool asset (MCC)",
            examples=["100"],
            title="Principal",
        ),
    ]
    rate_bps: Annotated[
        RateBps | None,
        Field(
            description="Annual rate; omitted = the pool's current rate",
            title="Rate Bps",
        ),
    ] = None
    to_time: Annotated[AwareDatetime | None, Field(title="To Time")] = None


class CancelIn(BaseModel):
    idempotency_key: Annotated[str | None, Field(title="Idempotency Key")] = None
    reason: Annotated[Reason | None, Field(title="Reason")] = None


class Capacities(BaseModel):
    matrix: Annotated[int, Field(title="Matrix")]
    sector: Annotated[int, Field(title="Sector")]
    station: Annotated[int, Field(title="Station")]
    system: Annotated[int, Field(title="System")]


class DailyKpi(BaseModel):
    avg_input: Annotated[
        str,
        Field(description="USDC per member, rounded down to 6 decimals", title="Avg Input"),
    ]
    day: Annotated[date_aliased, Field(title="Day")]
    member_count: Annotated[int, Field(title="Member Count")]
    mining_input: Annotated[str, Field(description="USDC, decimal string", title="Mining Input")]
    qualifies: Annotated[bool, Field(title="Qualifies")]


class DayProject(BaseModel):
    activities: Annotated[int, Field(title="Activities")]
    date: Annotated[str, Field(title="Date")]
    mcd_amount: Annotated[str, Field(description="MCD, decimal string", title="Mcd Amount")]
    project_id: Annotated[str, Field(title="Project Id")]
    trade_volume_usdc: Annotated[
        str, Field(description="USDC, decimal string", title="Trade Volume Usdc")
    ]


class Secret(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="Signing secret; omitted = one is generated and shown once in the response",
            max_length=256,
            min_length=16,
            title="Secret",
        ),
    ]


class Events(
    RootModel[
        list[
            Literal[
                "mining.activity.verified",
                "mining.reward.confirmed",
                "funds.locked",
                "funds.unlocked",
                "transfer.completed",
                "transfer.failed",
                "funds.deposited",
            ]
        ]
    ]
):
    root: Annotated[
        list[
            Literal[
                "mining.activity.verified",
                "mining.reward.confirmed",
                "funds.locked",
                "funds.unlocked",
                "transfer.completed",
                "transfer.failed",
                "funds.deposited",
            ]
        ],
        Field(min_length=1, title="Events"),
    ]


class EndpointIn(BaseModel):
    events: Annotated[
        list[
            Literal[
                "mining.activity.verified",
                "mining.reward.confirmed",
                "funds.locked",
                "funds.unlocked",
                "transfer.completed",
                "transfer.failed",
                "funds.deposited",
            ]
        ],
        Field(examples=[["mining.reward.confirmed"]], min_length=1, title="Events"),
    ]
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
    secret: Annotated[
        Secret | None,
        Field(
            description="Signing secret; omitted = one is generated and shown once in the response",
            title="Secret",
        ),
    ] = None
    url: Annotated[
        str,
        Field(examples=["https://game.example/hooks/mccgw"], max_length=2000, title="Url"),
    ]


class Secret1(RootModel[str]):
    root: Annotated[str, Field(max_length=256, min_length=16, title="Secret")]


class EndpointPatch(BaseModel):
    enabled: Annotated[
        bool | None,
        Field(
            description="true re-enables a disabled endpoint (its pending deliveries resume)",
            title="Enabled",
        ),
    ] = None
    events: Annotated[Events | None, Field(title="Events")] = None
    idempotency_key: Annotated[str | None, Field(title="Idempotency Key")] = None
    secret: Annotated[Secret1 | None, Field(title="Secret")] = None
    url: Annotated[Url | None, Field(title="Url")] = None


class EstimateAttributes(BaseModel):
    available_liquidity: Annotated[str, Field(title="Available Liquidity")]
    checks: BorrowChecks
    collateral_type: Annotated[str, Field(title="Collateral Type")]
    collateral_value: Annotated[str, Field(title="Collateral Value")]
    decimals: Annotated[int, Field(title="Decimals")]
    due_at: Annotated[str | None, Field(title="Due At")]
    duration: Annotated[str, Field(title="Duration")]
    duration_seconds: Annotated[int, Field(title="Duration Seconds")]
    eligible: Annotated[bool, Field(title="Eligible")]
    interest_at_due: Annotated[str, Field(title="Interest At Due")]
    lending_pool: Annotated[str, Field(title="Lending Pool")]
    loan_amount: Annotated[str, Field(title="Loan Amount")]
    ltv_bps: Annotated[int | None, Field(title="Ltv Bps")]
    max_borrow: Annotated[str, Field(title="Max Borrow")]
    max_seconds_before_overflow: Annotated[int | None, Field(title="Max Seconds Before Overflow")]
    onchain_overflow: Annotated[bool, Field(title="Onchain Overflow")]
    rate_bps_applied: Annotated[int, Field(title="Rate Bps Applied")]
    rate_bps_now: Annotated[int, Field(title="Rate Bps Now")]
    rate_bps_post: Annotated[
        int,
        Field(description="The rate once this loan is borrowed", title="Rate Bps Post"),
    ]
    total_due: Annotated[str, Field(title="Total Due")]
