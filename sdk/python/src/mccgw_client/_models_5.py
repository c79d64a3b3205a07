"""Models, part 5 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field

from ._models_1 import AttributeValue, BaseModel, IdempotencyKey
from ._models_2 import Meta
from ._models_4 import Liquidity, LoanAttributes, UserUid


class MiningSubmissionAttrs(BaseModel):
    """
    A ``mining_activity`` resource: one submission, its reward and its history.
    """

    activity_type: str
    block_height: int | None
    confirmed_at: str | None
    created_at: str | None
    history: list[dict[str, Any]]
    idempotency_key: str
    mcd_amount: str | None
    mcd_estimated: str
    reason: str | None
    status: str
    tx_signature: str | None
    updated_at: str | None
    user_uid: str


class MiningWebhookMeta(Meta):
    webhook_note: str
    webhook_url: str | None


class NftAttributes(BaseModel):
    account: str
    created_at: str | None
    current_members: int
    is_auctioning: bool
    is_frozen: bool
    mint: str | None
    name: str
    parent_id: int | None
    recorded_owner: str
    status: Literal["minted", "reserved"]
    territory_id: int
    territory_type: str
    updated_at: str | None


class NftDetailAttributes(NftAttributes):
    escrowed_in: Literal["lending_loan", "fragment_vault"] | None
    holder: str | None
    holder_token_account: str | None
    owner_is_stale: bool


class OAuthClientAttrs(BaseModel):
    client_type: str
    oauth_client_id: str
    redirect_uris: list[str]
    scopes: list[str]


class OAuthError(BaseModel):
    """
    RFC 6749 section 5.2 error response.
    """

    error: str
    error_description: str | None = None


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
    active_loans: int
    liquidity: Liquidity
    loans: list[LoanAttributes]
    total_debt: str
    wallet: str


class PriceSet(BaseModel):
    idempotency_key: IdempotencyKey = None
    price_usdc: Annotated[
        str, Field(description="6 decimals at most, 0.01 to 1000", examples=["10.5"])
    ]


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
    attribute_key: str
    attribute_value: Any
    project_id: str
    updated_at: str
    visibility: str


class ProfileUpdate(BaseModel):
    display_name: Annotated[str, Field(examples=["Alice"], max_length=50, min_length=1)]
    idempotency_key: IdempotencyKey = None


class ProjectAttributesAttrs(BaseModel):
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


Reason: TypeAlias = Annotated[str | None, Field(max_length=2000)]


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
    avatar_url: str | None
    created_at: str
    display_name: str | None
    uid: str
