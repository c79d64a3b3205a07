"""Models, part 6 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_2 import AttributeValue
from ._models_3 import Meta
from ._models_4 import Liquidity, LoanAttributes
from ._models_5 import UserUid


class NftAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
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


class NftDetailAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    created_at: str | None
    current_members: int
    escrowed_in: Literal["lending_loan", "fragment_vault"] | None
    holder: str | None
    holder_token_account: str | None
    is_auctioning: bool
    is_frozen: bool
    mint: str | None
    name: str
    owner_is_stale: bool
    parent_id: int | None
    recorded_owner: str
    status: Literal["minted", "reserved"]
    territory_id: int
    territory_type: str
    updated_at: str | None


class OAuthClientAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    client_type: str
    oauth_client_id: str
    redirect_uris: list[str]
    scopes: list[str]


class OAuthClientSecretAttributes(BaseModel):
    """
    The answer of a client secret roll: the new client secret, shown once.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    client_secret: Annotated[str, Field(description="The new client secret, shown once")]
    client_type: str
    oauth_client_id: str
    previous_expires_at: str | None
    rolled_at: str


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
    model_config = ConfigDict(
        extra="forbid",
    )
    active_loans: int
    liquidity: Liquidity
    loans: list[LoanAttributes]
    total_debt: str
    wallet: str


class PriceSet(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Optional (the write is naturally idempotent); with one, a retry within 24 h is replayed, not run again"
        ),
    ] = None
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
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Optional (the write is naturally idempotent); with one, a retry within 24 h is replayed, not run again"
        ),
    ] = None


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
    idempotency_key: IdempotencyKey = None
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
