"""Models, part 3 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Literal

from pydantic import AwareDatetime, ConfigDict, Field, RootModel

from ._models_1 import Attempt, BaseModel, Reason, Secret, Url
from ._models_2 import BorrowChecks, DurationSeconds, RateBps


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


class ChainWriteView(BaseModel):
    attempt: Annotated[int | None, Field(title="Attempt")]
    confirmation_status: Annotated[str | None, Field(title="Confirmation Status")]
    last_valid_block_height: Annotated[int | None, Field(title="Last Valid Block Height")]
    send_count: Annotated[int | None, Field(title="Send Count")]
    signature: Annotated[str | None, Field(title="Signature")]
    status: Annotated[str, Field(title="Status")]


class CountMeta(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    request_id: Annotated[str | None, Field(title="Request Id")] = None
    total: Annotated[int, Field(title="Total")]


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


class DeliveryAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    attempt_log: Annotated[list[Attempt], Field(title="Attempt Log")]
    attempts: Annotated[int, Field(title="Attempts")]
    completed_at: Annotated[str | None, Field(title="Completed At")]
    created_at: Annotated[str, Field(title="Created At")]
    endpoint_id: Annotated[str, Field(title="Endpoint Id")]
    event_id: Annotated[str, Field(title="Event Id")]
    event_type: Annotated[str, Field(title="Event Type")]
    last_error: Annotated[str | None, Field(title="Last Error")]
    last_status_code: Annotated[int | None, Field(title="Last Status Code")]
    next_attempt_at: Annotated[str | None, Field(title="Next Attempt At")]
    status: Annotated[str, Field(description="pending, succeeded or failed", title="Status")]


class DriftAttrs(BaseModel):
    address: Annotated[str | None, Field(title="Address")]
    chain_balance: Annotated[str, Field(title="Chain Balance")]
    created_at: Annotated[str | None, Field(title="Created At")]
    currency: Annotated[str, Field(title="Currency")]
    drift: Annotated[str, Field(title="Drift")]
    ledger_balance: Annotated[str, Field(title="Ledger Balance")]
    run_id: Annotated[str, Field(title="Run Id")]
    user_uid: Annotated[str, Field(title="User Uid")]


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


class EndpointAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    created_at: Annotated[str, Field(title="Created At")]
    disabled_at: Annotated[str | None, Field(title="Disabled At")]
    disabled_reason: Annotated[str | None, Field(title="Disabled Reason")]
    events: Annotated[list[str], Field(title="Events")]
    failing_since: Annotated[str | None, Field(title="Failing Since")]
    status: Annotated[str, Field(description="active, disabled or deleted", title="Status")]
    updated_at: Annotated[str, Field(title="Updated At")]
    url: Annotated[str, Field(title="Url")]


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
