"""Models, part 5 of 8 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, RootModel

from ._models_1 import BaseModel, Description
from ._models_3 import LoansByStatus


class PriceSet(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
    price_usdc: Annotated[
        str,
        Field(
            description="6 decimals at most, 0.01 to 1000",
            examples=["10.5"],
            title="Price Usdc",
        ),
    ]


class Error(BaseModel):
    field: str | None = None
    message: str | None = None


class Problem(BaseModel):
    """
    RFC 7807 / RFC 9457 problem details; `type` ends in a stable slug.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    detail: str | None = None
    errors: list[Error] | None = None
    instance: str | None = None
    status: Annotated[int, Field(ge=400, le=599)]
    title: str
    type: str


class ProfileUpdate(BaseModel):
    display_name: Annotated[
        str,
        Field(examples=["Alice"], max_length=50, min_length=1, title="Display Name"),
    ]
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None


class ProjectId(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="Optional; assigned when absent",
            pattern="^[1-9][0-9]{0,17}$",
            title="Project Id",
        ),
    ]


class WebhookUrl(RootModel[str]):
    root: Annotated[str, Field(max_length=500, pattern="^https?://", title="Webhook Url")]


class ProjectRegistrationIn(BaseModel):
    """
    Spec "Project registration by an administrator".
    """

    allowed_scopes: Annotated[list[str] | None, Field(max_length=20, title="Allowed Scopes")] = None
    description: Annotated[Description | None, Field(title="Description")] = None
    name: Annotated[str, Field(max_length=100, min_length=3, title="Name")]
    project_id: Annotated[
        ProjectId | None,
        Field(description="Optional; assigned when absent", title="Project Id"),
    ] = None
    rate_limit_tier: Annotated[
        Literal["free", "standard", "enterprise"] | None, Field(title="Rate Limit Tier")
    ] = "free"
    redirect_uris: Annotated[
        list[str] | None,
        Field(
            description="OAuth redirect URIs of the project's client (the project can change them)",
            max_length=10,
            title="Redirect Uris",
        ),
    ] = None
    webhook_url: Annotated[WebhookUrl | None, Field(title="Webhook Url")] = None


class ProofIn(BaseModel):
    hash: Annotated[
        str,
        Field(
            description="hex SHA-256 of the canonical form",
            pattern="^[0-9a-fA-F]{64}$",
            title="Hash",
        ),
    ]
    signature: Annotated[str, Field(max_length=300, min_length=1, title="Signature")]
    timestamp: Annotated[
        int | str, Field(description="ISO 8601 or Unix seconds", title="Timestamp")
    ]
    type: Annotated[Literal["hmac-sha256", "ed25519"], Field(title="Type")]


class RedirectUrisIn(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
    redirect_uris: Annotated[
        list[str],
        Field(
            description="Absolute https URLs (http only on localhost); replaces the list",
            examples=[["https://app.example/callback", "http://localhost:3000/callback"]],
            max_length=10,
            title="Redirect Uris",
        ),
    ]


class RejectIn(BaseModel):
    reason: Annotated[
        str,
        Field(
            examples=["Incomplete company details"],
            max_length=2000,
            min_length=1,
            title="Reason",
        ),
    ]


class RemovalIn(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None


class Resource(BaseModel):
    attributes: Annotated[dict[str, Any], Field(title="Attributes")]
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


class StationSummary(BaseModel):
    id: Annotated[str, Field(title="Id")]
    mining_input: Annotated[str, Field(title="Mining Input")]
    qualifying_days: Annotated[int, Field(title="Qualifying Days")]


class StatsAttributes(BaseModel):
    active_principal: Annotated[str, Field(title="Active Principal")]
    as_of: Annotated[str | None, Field(title="As Of")]
    available_liquidity: Annotated[str, Field(title="Available Liquidity")]
    borrow_rate_bps: Annotated[int, Field(title="Borrow Rate Bps")]
    exchange_rate: Annotated[
        str,
        Field(
            description="Assets per LP token (6 decimals, floored)",
            title="Exchange Rate",
        ),
    ]
    loans: Annotated[int, Field(title="Loans")]
    loans_by_status: LoansByStatus
    lp_supply: Annotated[str | None, Field(title="Lp Supply")]
    pending_pool_interest: Annotated[str, Field(title="Pending Pool Interest")]
    pending_protocol_fee: Annotated[str, Field(title="Pending Protocol Fee")]
    pool_accrual_overflow: Annotated[bool, Field(title="Pool Accrual Overflow")]
    recorded_total_borrowed: Annotated[
        str,
        Field(
            description="The pool's total_borrowed field (drifts upward, see docs/views.md)",
            title="Recorded Total Borrowed",
        ),
    ]
    supply_rate_bps: Annotated[int, Field(title="Supply Rate Bps")]
    tvl: Annotated[
        str,
        Field(
            description="Deposits + accrued interest - protocol fees, accrued to now",
            title="Tvl",
        ),
    ]
    utilization_bps: Annotated[int, Field(title="Utilization Bps")]
    vault_balance: Annotated[str | None, Field(title="Vault Balance")]


class Reason2(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Reason")]


class StatusChangeIn(BaseModel):
    reason: Annotated[Reason2 | None, Field(title="Reason")] = None
    status: Annotated[
        Literal["active", "maintenance", "testing", "discontinued", "deleted"],
        Field(title="Status"),
    ]


class TokenStats(BaseModel):
    custody_total: Annotated[str, Field(title="Custody Total")]
    decimals: Annotated[int, Field(title="Decimals")]
    holders: Annotated[int, Field(title="Holders")]
    mint: Annotated[str, Field(title="Mint")]
    price_source: Annotated[str | None, Field(title="Price Source")] = None
    price_usdc: Annotated[str | None, Field(title="Price Usdc")] = None
    supply: Annotated[str, Field(title="Supply")]
    transactions_24h: Annotated[int, Field(title="Transactions 24H")]
    transactions_30d: Annotated[int, Field(title="Transactions 30D")]
    updated_at: Annotated[str, Field(title="Updated At")]
    volume_24h: Annotated[str, Field(title="Volume 24H")]
    volume_30d: Annotated[str, Field(title="Volume 30D")]
