"""Models, part 7 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_4 import LightIn
from ._models_6 import Reason


class ProjectSettingsIn(BaseModel):
    """
    Any of the project's tier, amount limits and IP allow-list, with the reason (audited).
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    ip_allowlist: Annotated[
        list[str] | None,
        Field(description="CIDR blocks (or addresses) allowed to call; [] = any address"),
    ] = None
    limits: Annotated[
        dict[str, Any] | None,
        Field(
            description="Replaces the overrides: {operation: {currency: {per_operation, per_day}}}, operations fund_lock/transfer/mining, currencies MCC/MCD, decimal strings of whole tokens; {} restores the defaults"
        ),
    ] = None
    rate_limit_tier: Annotated[
        Literal["free", "standard", "enterprise"] | None,
        Field(description="free (100/min), standard (1000/min), enterprise (10000/min)"),
    ] = None
    reason: Reason = None


class ProofIn(BaseModel):
    hash: Annotated[
        str,
        Field(description="hex SHA-256 of the canonical form", pattern="^[0-9a-fA-F]{64}$"),
    ]
    signature: Annotated[str, Field(max_length=300, min_length=1)]
    timestamp: Annotated[int | str, Field(description="ISO 8601 or Unix seconds")]
    type: Literal["hmac-sha256", "ed25519"]


class PublicUserAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    avatar_url: str | None
    created_at: str
    display_name: str | None
    uid: str


class Ready(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
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


class RegisteredEndpointAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    created_at: str
    disabled_at: str | None
    disabled_reason: str | None
    events: list[str]
    failing_since: str | None
    secret: Annotated[
        str | None,
        Field(description="Only when registered without one: the generated secret, shown once"),
    ] = None
    status: Annotated[str, Field(description="active, disabled or deleted")]
    updated_at: str
    url: str


class RegisteredProjectAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
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
    webhook_endpoint_id: str | None = None
    webhook_secret: Annotated[
        str | None,
        Field(description="With webhook_url: the endpoint's signing secret, shown once"),
    ] = None
    webhook_url: str | None


class RejectIn(BaseModel):
    reason: Annotated[
        str,
        Field(examples=["Incomplete company details"], max_length=2000, min_length=1),
    ]


class RemovalIn(LightIn):
    pass


class RetriedWrite(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    signature: str | None
    status: str


class RetryAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
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


class StationSummary(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    id: str
    mining_input: str
    qualifying_days: int
