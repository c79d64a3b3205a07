"""Models, part 6 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, RootModel

from ._models_1 import BaseModel, Error
from ._models_2 import Liquidity
from ._models_5 import LoanAttributes


class MembershipAttributes(BaseModel):
    joined_at: Annotated[str | None, Field(title="Joined At")]
    left_at: Annotated[str | None, Field(title="Left At")]
    moved: Annotated[bool, Field(description="False when nothing changed", title="Moved")]
    station: Annotated[str | None, Field(title="Station")]
    user_uid: Annotated[str, Field(title="User Uid")]


class Meta(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    request_id: Annotated[str | None, Field(title="Request Id")] = None


class MiningBatchMeta(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    accepted: Annotated[int, Field(title="Accepted")]
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    page: Annotated[int, Field(title="Page")]
    per_page: Annotated[int, Field(title="Per Page")]
    refused: Annotated[int, Field(title="Refused")]
    request_id: Annotated[str | None, Field(title="Request Id")] = None
    total: Annotated[int, Field(title="Total")]
    webhook_note: Annotated[str, Field(title="Webhook Note")]
    webhook_url: Annotated[str | None, Field(title="Webhook Url")]


class MiningRecordAttrs(BaseModel):
    """
    A ``mining_record``: one confirmed reward.
    """

    activity_type: Annotated[str, Field(title="Activity Type")]
    block_height: Annotated[int | None, Field(title="Block Height")]
    confirmed_at: Annotated[str | None, Field(title="Confirmed At")]
    date: Annotated[str | None, Field(title="Date")]
    mcd_amount: Annotated[str, Field(title="Mcd Amount")]
    project_id: Annotated[str, Field(title="Project Id")]
    status: Annotated[str, Field(title="Status")]
    tx_signature: Annotated[str | None, Field(title="Tx Signature")]
    user_uid: Annotated[str, Field(title="User Uid")]


class MiningSubmissionAttrs(BaseModel):
    """
    A ``mining_activity`` resource: one submission, its reward and its history.
    """

    activity_type: Annotated[str, Field(title="Activity Type")]
    block_height: Annotated[int | None, Field(title="Block Height")]
    confirmed_at: Annotated[str | None, Field(title="Confirmed At")]
    created_at: Annotated[str | None, Field(title="Created At")]
    history: Annotated[list[dict[str, Any]], Field(title="History")]
    idempotency_key: Annotated[str, Field(title="Idempotency Key")]
    mcd_amount: Annotated[str | None, Field(title="Mcd Amount")]
    mcd_estimated: Annotated[str, Field(title="Mcd Estimated")]
    reason: Annotated[str | None, Field(title="Reason")]
    status: Annotated[str, Field(title="Status")]
    tx_signature: Annotated[str | None, Field(title="Tx Signature")]
    updated_at: Annotated[str | None, Field(title="Updated At")]
    user_uid: Annotated[str, Field(title="User Uid")]


class MiningWebhookMeta(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    request_id: Annotated[str | None, Field(title="Request Id")] = None
    webhook_note: Annotated[str, Field(title="Webhook Note")]
    webhook_url: Annotated[str | None, Field(title="Webhook Url")]


class Parent(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="The parent's id: a station's matrix, a matrix's sector, a sector's system",
            pattern="^(station|matrix|sector|system)-[1-9][0-9]{0,17}$",
            title="Parent",
        ),
    ]


class NftAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    created_at: Annotated[str | None, Field(title="Created At")]
    current_members: Annotated[int, Field(title="Current Members")]
    is_auctioning: Annotated[bool, Field(title="Is Auctioning")]
    is_frozen: Annotated[bool, Field(title="Is Frozen")]
    mint: Annotated[str | None, Field(title="Mint")]
    name: Annotated[str, Field(title="Name")]
    parent_id: Annotated[int | None, Field(title="Parent Id")]
    recorded_owner: Annotated[str, Field(title="Recorded Owner")]
    status: Annotated[Literal["minted", "reserved"], Field(title="Status")]
    territory_id: Annotated[int, Field(title="Territory Id")]
    territory_type: Annotated[str, Field(title="Territory Type")]
    updated_at: Annotated[str | None, Field(title="Updated At")]


class NftDetailAttributes(NftAttributes):
    escrowed_in: Annotated[
        Literal["lending_loan", "fragment_vault"] | None, Field(title="Escrowed In")
    ]
    holder: Annotated[str | None, Field(title="Holder")]
    holder_token_account: Annotated[str | None, Field(title="Holder Token Account")]
    owner_is_stale: Annotated[bool, Field(title="Owner Is Stale")]


class OAuthClientAttrs(BaseModel):
    client_type: Annotated[str, Field(title="Client Type")]
    oauth_client_id: Annotated[str, Field(title="Oauth Client Id")]
    redirect_uris: Annotated[list[str], Field(title="Redirect Uris")]
    scopes: Annotated[list[str], Field(title="Scopes")]


class OAuthError(BaseModel):
    """
    RFC 6749 section 5.2 error response.
    """

    error: Annotated[str, Field(title="Error")]
    error_description: Annotated[str | None, Field(title="Error Description")] = None


class Revocation(BaseModel):
    """
    RFC 7009: an empty JSON object whether or not the token existed.
    """

    model_config = ConfigDict(
        extra="forbid",
    )


class OpenIdConfiguration(BaseModel):
    authorization_endpoint: Annotated[str, Field(title="Authorization Endpoint")]
    claims_supported: Annotated[list[str], Field(title="Claims Supported")]
    code_challenge_methods_supported: Annotated[
        list[str], Field(title="Code Challenge Methods Supported")
    ]
    grant_types_supported: Annotated[list[str], Field(title="Grant Types Supported")]
    id_token_signing_alg_values_supported: Annotated[
        list[str], Field(title="Id Token Signing Alg Values Supported")
    ]
    introspection_endpoint: Annotated[str, Field(title="Introspection Endpoint")]
    issuer: Annotated[str, Field(title="Issuer")]
    jwks_uri: Annotated[str, Field(title="Jwks Uri")]
    response_types_supported: Annotated[list[str], Field(title="Response Types Supported")]
    revocation_endpoint: Annotated[str, Field(title="Revocation Endpoint")]
    scopes_supported: Annotated[list[str], Field(title="Scopes Supported")]
    subject_types_supported: Annotated[list[str], Field(title="Subject Types Supported")]
    token_endpoint: Annotated[str, Field(title="Token Endpoint")]
    token_endpoint_auth_methods_supported: Annotated[
        list[str], Field(title="Token Endpoint Auth Methods Supported")
    ]


class PageMeta(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    page: Annotated[int, Field(title="Page")]
    per_page: Annotated[int, Field(title="Per Page")]
    request_id: Annotated[str | None, Field(title="Request Id")] = None
    total: Annotated[int, Field(title="Total")]


class PositionAttributes(BaseModel):
    active_loans: Annotated[int, Field(title="Active Loans")]
    liquidity: Liquidity
    loans: Annotated[list[LoanAttributes], Field(title="Loans")]
    total_debt: Annotated[str, Field(title="Total Debt")]
    wallet: Annotated[str, Field(title="Wallet")]


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
