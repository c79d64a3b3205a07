"""Models, part 7 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel

from ._models_1 import BaseModel, Description
from ._models_2 import AttributeValue
from ._models_5 import LoansByStatus
from ._models_6 import OAuthClientAttrs


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


class ProjectAttributesAttrs(BaseModel):
    attributes: Annotated[dict[str, AttributeValue], Field(title="Attributes")]
    project_id: Annotated[str, Field(title="Project Id")]
    uid: Annotated[str, Field(title="Uid")]


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


class PublicUserAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    avatar_url: Annotated[str | None, Field(title="Avatar Url")]
    created_at: Annotated[str, Field(title="Created At")]
    display_name: Annotated[str | None, Field(title="Display Name")]
    uid: Annotated[str, Field(title="Uid")]


class Ready(BaseModel):
    checks: Annotated[dict[str, Literal["ok"]], Field(title="Checks")]
    status: Annotated[Literal["ready"], Field(title="Status")]


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


class RegisteredEndpointAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    created_at: Annotated[str, Field(title="Created At")]
    disabled_at: Annotated[str | None, Field(title="Disabled At")]
    disabled_reason: Annotated[str | None, Field(title="Disabled Reason")]
    events: Annotated[list[str], Field(title="Events")]
    failing_since: Annotated[str | None, Field(title="Failing Since")]
    secret: Annotated[
        str | None,
        Field(
            description="Only when registered without one: the generated secret, shown once",
            title="Secret",
        ),
    ] = None
    status: Annotated[str, Field(description="active, disabled or deleted", title="Status")]
    updated_at: Annotated[str, Field(title="Updated At")]
    url: Annotated[str, Field(title="Url")]


class RegisteredProjectAttrs(OAuthClientAttrs):
    allowed_scopes: Annotated[list[str], Field(title="Allowed Scopes")]
    api_key: Annotated[str, Field(title="Api Key")]
    api_secret: Annotated[str, Field(title="Api Secret")]
    created_at: Annotated[str, Field(title="Created At")]
    description: Annotated[str | None, Field(title="Description")]
    name: Annotated[str, Field(title="Name")]
    project_id: Annotated[str, Field(title="Project Id")]
    rate_limit_tier: Annotated[str, Field(title="Rate Limit Tier")]
    status: Annotated[str, Field(title="Status")]
    webhook_url: Annotated[str | None, Field(title="Webhook Url")]


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


class RetriedWrite(BaseModel):
    signature: Annotated[str | None, Field(title="Signature")]
    status: Annotated[str, Field(title="Status")]


class RetryAttrs(BaseModel):
    chain_write: RetriedWrite | None
    status: Annotated[str, Field(title="Status")]
    transfer_id: Annotated[str, Field(title="Transfer Id")]
    workflow_id: Annotated[str | None, Field(title="Workflow Id")]
    workflow_restarted: Annotated[bool, Field(title="Workflow Restarted")]


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
