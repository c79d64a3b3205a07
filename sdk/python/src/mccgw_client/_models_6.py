"""Models, part 6 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_2 import ChainWriteView
from ._models_3 import EndpointAttributes, HistoryItem, LightIn
from ._models_4 import LoansByStatus
from ._models_5 import Reason


class Ready(BaseModel):
    checks: dict[str, Literal["ok"]]
    status: Literal["ready"]


class RedirectUrisIn(BaseModel):
    idempotency_key: IdempotencyKey = None
    redirect_uris: Annotated[
        list[str],
        Field(
            description="Absolute https URLs (http only on localhost); replaces the list",
            examples=[["https://app.example/callback", "http://localhost:3000/callback"]],
            max_length=10,
        ),
    ]


class RegisteredEndpointAttributes(EndpointAttributes):
    secret: Annotated[
        str | None,
        Field(description="Only when registered without one: the generated secret, shown once"),
    ] = None


class RegisteredProjectAttrs(BaseModel):
    allowed_scopes: list[str]
    api_key: str
    api_secret: str
    client_type: str
    created_at: str
    description: str | None
    name: str
    oauth_client_id: str
    project_id: str
    rate_limit_tier: str
    redirect_uris: list[str]
    scopes: list[str]
    status: str
    webhook_url: str | None


class RejectIn(BaseModel):
    reason: Annotated[
        str,
        Field(examples=["Incomplete company details"], max_length=2000, min_length=1),
    ]


class RemovalIn(LightIn):
    pass


class RetriedWrite(BaseModel):
    signature: str | None
    status: str


class RetryAttrs(BaseModel):
    chain_write: RetriedWrite | None
    status: str
    transfer_id: str
    workflow_id: str | None
    workflow_restarted: bool


class Revocation(BaseModel):
    """
    RFC 7009: an empty JSON object whether or not the token existed.
    """

    model_config = ConfigDict(
        extra="forbid",
    )


class RollIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    expire_previous_in_seconds: Annotated[
        int | None,
        Field(
            description="How long the current secret keeps working (0: stops now; at most 7 days)",
            ge=0,
            le=604800,
        ),
    ] = 86400
    reason: Reason = None


class SecretRollIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    expire_previous_in_seconds: Annotated[
        int | None,
        Field(
            description="How long deliveries are also signed with the current secret (0: stop now)",
            ge=0,
            le=604800,
        ),
    ] = 86400
    idempotency_key: IdempotencyKey = None


class SecretRolledAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    endpoint_id: str
    previous_expires_at: str | None
    rolled_at: str
    secret: Annotated[str, Field(description="The new signing secret, shown once")]


class StationSummary(BaseModel):
    id: str
    mining_input: str
    qualifying_days: int


class StatsAttributes(BaseModel):
    active_principal: str
    as_of: str | None
    available_liquidity: str
    borrow_rate_bps: int
    exchange_rate: Annotated[str, Field(description="Assets per LP token (6 decimals, floored)")]
    loans: int
    loans_by_status: LoansByStatus
    lp_supply: str | None
    pending_pool_interest: str
    pending_protocol_fee: str
    pool_accrual_overflow: bool
    recorded_total_borrowed: Annotated[
        str,
        Field(description="The pool's total_borrowed field (drifts upward, see docs/views.md)"),
    ]
    supply_rate_bps: int
    tvl: Annotated[
        str,
        Field(description="Deposits + accrued interest - protocol fees, accrued to now"),
    ]
    utilization_bps: int
    vault_balance: str | None


class StatusChangeIn(BaseModel):
    reason: Reason = None
    status: Literal["active", "maintenance", "testing", "discontinued", "deleted"]


class StatusRecordAttrs(BaseModel):
    changed_by: str | None
    created_at: str
    from_status: str | None
    project_id: str
    reason: str | None
    status: str


class DetailedTransferAttrs(BaseModel):
    amount: str
    block_height: int | None
    created_at: str | None
    currency: str
    failure_reason: str | None
    finished_at: str | None
    from_uid: str
    history: list[HistoryItem]
    lock_id: str | None
    reference: dict[str, Any] | None
    requires_onchain: bool
    slot: int | None
    status: str
    to_uid: str
    transfer_type: str
    tx_signature: str | None
    updated_at: str | None


class StuckTransferAttrs(DetailedTransferAttrs):
    chain_write: ChainWriteView | None
    onchain_at: str | None


class TokenResponse(BaseModel):
    access_token: str
    expires_in: int
    id_token: str | None = None
    refresh_token: str | None = None
    scope: str | None = None
    token_type: str


class TokenStats(BaseModel):
    custody_total: str
    decimals: int
    holders: int
    mint: str
    price_source: str | None = None
    price_usdc: str | None = None
    supply: str
    transactions_24h: int
    transactions_30d: int
    updated_at: str
    volume_24h: str
    volume_30d: str
