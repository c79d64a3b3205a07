"""Models, part 6 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ._models_1 import AttributeValue, BaseModel, IdempotencyKey
from ._models_3 import Meta
from ._models_4 import LightIn, Liquidity, LoanAttributes, UserUid


class OpenIdConfiguration(BaseModel):
    authorization_endpoint: str
    claims_supported: list[str]
    code_challenge_methods_supported: list[str]
    grant_types_supported: list[str]
    id_token_signing_alg_values_supported: list[str]
    introspection_endpoint: str
    issuer: str
    jwks_uri: str
    response_types_supported: list[str]
    revocation_endpoint: str
    scopes_supported: list[str]
    subject_types_supported: list[str]
    token_endpoint: str
    token_endpoint_auth_methods_supported: list[str]


class PageMeta(Meta):
    page: int
    per_page: int
    total: int


class PlacementIn(BaseModel):
    idempotency_key: IdempotencyKey = None
    user_uid: UserUid


class PositionAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    active_loans: int
    liquidity: Liquidity
    loans: list[LoanAttributes]
    total_debt: str
    wallet: str


class Error(BaseModel):
    field: str | None = None
    message: str | None = None


class Problem(BaseModel):
    """
    RFC 7807 / RFC 9457 problem details; `type` ends in a stable slug.
    """

    detail: str | None = None
    errors: list[Error] | None = None
    instance: str | None = None
    status: Annotated[int, Field(ge=400, le=599)]
    title: str
    type: str


class ProfileAttribute(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    attribute_key: str
    attribute_value: Any
    project_id: str
    updated_at: str
    visibility: str


class ProfileUpdate(BaseModel):
    display_name: Annotated[str, Field(examples=["Alice"], max_length=50, min_length=1)]
    idempotency_key: IdempotencyKey = None


class ProjectAttributeAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    attribute_key: str
    attribute_value: Any
    created_at: str
    project_id: str
    uid: str
    updated_at: str
    visibility: str


class ProjectAttributeSetAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    attributes: dict[str, AttributeValue]
    project_id: str
    uid: str


class ProjectRegistrationIn(BaseModel):
    """
    Spec "Project registration by an administrator".
    """

    allowed_scopes: Annotated[list[str] | None, Field(max_length=20)] = None
    description: Annotated[str | None, Field(max_length=2000)] = None
    name: Annotated[str, Field(max_length=100, min_length=3)]
    project_id: Annotated[
        str | None,
        Field(description="Optional; assigned when absent", pattern="^[1-9][0-9]{0,17}$"),
    ] = None
    rate_limit_tier: Literal["free", "standard", "enterprise"] | None = "free"
    redirect_uris: Annotated[
        list[str] | None,
        Field(
            description="OAuth redirect URIs of the project's client (the project can change them)",
            max_length=10,
        ),
    ] = None
    webhook_url: Annotated[str | None, Field(max_length=500, pattern="^https?://")] = None


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


class ReadyBody(BaseModel):
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
