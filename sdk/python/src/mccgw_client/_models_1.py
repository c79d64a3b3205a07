"""Models, part 1 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel as _BaseModel
from pydantic import ConfigDict, Field, RootModel


class BaseModel(_BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )


class AddressBalance(BaseModel):
    address: Annotated[str, Field(title="Address")]
    token_accounts: Annotated[int, Field(title="Token Accounts")]
    total_balance: Annotated[
        str,
        Field(
            description="sum of the wallet's MCC token accounts (finalized)",
            title="Total Balance",
        ),
    ]
    updated_at: Annotated[str, Field(title="Updated At")]


class Reason(RootModel[str]):
    root: Annotated[str, Field(max_length=200, title="Reason")]


class AdminActionIn(BaseModel):
    reason: Annotated[str | None, Field(max_length=200, min_length=1, title="Reason")] = (
        "operator action"
    )


class Alive(BaseModel):
    status: Annotated[Literal["ok"], Field(title="Status")]


class Uid(RootModel[str]):
    root: Annotated[str, Field(max_length=100, min_length=1)]


class Description(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Description")]


class Url(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Url")]


class ApplicationAttrs(BaseModel):
    api_key: Annotated[str | None, Field(title="Api Key")]
    application_id: Annotated[str, Field(title="Application Id")]
    company_name: Annotated[str | None, Field(title="Company Name")]
    created_at: Annotated[str, Field(title="Created At")]
    developer_email: Annotated[str, Field(title="Developer Email")]
    developer_uid: Annotated[str, Field(title="Developer Uid")]
    mcc_wallet_address: Annotated[str | None, Field(title="Mcc Wallet Address")]
    mcd_wallet_address: Annotated[str, Field(title="Mcd Wallet Address")]
    project_description: Annotated[str | None, Field(title="Project Description")]
    project_id: Annotated[int | None, Field(title="Project Id")]
    project_name: Annotated[str, Field(title="Project Name")]
    rejection_reason: Annotated[str | None, Field(title="Rejection Reason")]
    reviewed_at: Annotated[str | None, Field(title="Reviewed At")]
    reviewed_by: Annotated[str | None, Field(title="Reviewed By")]
    status: Annotated[str, Field(title="Status")]
    updated_at: Annotated[str, Field(title="Updated At")]
    website_url: Annotated[str | None, Field(title="Website Url")]
    whitelist_bump: Annotated[int | None, Field(title="Whitelist Bump")]
    whitelist_pda: Annotated[str | None, Field(title="Whitelist Pda")]
    whitelist_tx: Annotated[str | None, Field(title="Whitelist Tx")]


class CompanyName(RootModel[str]):
    root: Annotated[str, Field(max_length=100, title="Company Name")]


class ProjectDescription(RootModel[str]):
    root: Annotated[str, Field(max_length=5000, title="Project Description")]


class WebsiteUrl(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Website Url")]


class ApplicationIn(BaseModel):
    """
    A developer's application for a project (developer_uid/email come from the token).
    """

    company_name: Annotated[CompanyName | None, Field(title="Company Name")] = None
    mcc_wallet_address: Annotated[
        str | None,
        Field(description="Base58 chain address, optional", title="Mcc Wallet Address"),
    ] = None
    mcd_wallet_address: Annotated[
        str,
        Field(
            description="Base58 chain address (32 bytes), required",
            title="Mcd Wallet Address",
        ),
    ]
    project_description: Annotated[
        ProjectDescription | None, Field(title="Project Description")
    ] = None
    project_name: Annotated[str, Field(max_length=100, min_length=3, title="Project Name")]
    website_url: Annotated[WebsiteUrl | None, Field(title="Website Url")] = None


class AllowedScopes(RootModel[list[str]]):
    root: Annotated[
        list[str],
        Field(examples=[["funds:read"]], max_length=20, title="Allowed Scopes"),
    ]


class ApproveIn(BaseModel):
    """
    Optional: the project scopes the approved project gets (default: every one).
    """

    allowed_scopes: Annotated[
        AllowedScopes | None, Field(examples=[["funds:read"]], title="Allowed Scopes")
    ] = None


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


class ApprovedAttrs(BaseModel):
    """
    The approve answer: the application, its api_secret (shown once) and OAuth client.
    """

    api_key: Annotated[str | None, Field(title="Api Key")]
    api_secret: Annotated[str, Field(title="Api Secret")]
    application_id: Annotated[str, Field(title="Application Id")]
    client_type: Annotated[str | None, Field(title="Client Type")] = None
    company_name: Annotated[str | None, Field(title="Company Name")]
    created_at: Annotated[str, Field(title="Created At")]
    developer_email: Annotated[str, Field(title="Developer Email")]
    developer_uid: Annotated[str, Field(title="Developer Uid")]
    mcc_wallet_address: Annotated[str | None, Field(title="Mcc Wallet Address")]
    mcd_wallet_address: Annotated[str, Field(title="Mcd Wallet Address")]
    oauth_client_id: Annotated[str | None, Field(title="Oauth Client Id")] = None
    project_description: Annotated[str | None, Field(title="Project Description")]
    project_id: Annotated[int | None, Field(title="Project Id")]
    project_name: Annotated[str, Field(title="Project Name")]
    redirect_uris: Annotated[list[str] | None, Field(title="Redirect Uris")] = None
    rejection_reason: Annotated[str | None, Field(title="Rejection Reason")]
    reviewed_at: Annotated[str | None, Field(title="Reviewed At")]
    reviewed_by: Annotated[str | None, Field(title="Reviewed By")]
    scopes: Annotated[list[str] | None, Field(title="Scopes")] = None
    status: Annotated[str, Field(title="Status")]
    updated_at: Annotated[str, Field(title="Updated At")]
    website_url: Annotated[str | None, Field(title="Website Url")]
    whitelist_bump: Annotated[int | None, Field(title="Whitelist Bump")]
    whitelist_pda: Annotated[str | None, Field(title="Whitelist Pda")]
    whitelist_tx: Annotated[str | None, Field(title="Whitelist Tx")]


class Error(BaseModel):
    field: str | None = None
    message: str | None = None


class Attempt(BaseModel):
    at: Annotated[str, Field(title="At")]
    attempt: Annotated[int, Field(title="Attempt")]
    error: Annotated[str | None, Field(title="Error")]
    latency_ms: Annotated[int | None, Field(title="Latency Ms")]
    status_code: Annotated[int | None, Field(title="Status Code")]


class ProfileAttribute(BaseModel):
    attribute_key: Annotated[str, Field(title="Attribute Key")]
    attribute_value: Annotated[Any, Field(title="Attribute Value")]
    project_id: Annotated[str, Field(title="Project Id")]
    updated_at: Annotated[str, Field(title="Updated At")]
    visibility: Annotated[str, Field(title="Visibility")]


class AttributeAttrs(ProfileAttribute):
    created_at: Annotated[str, Field(title="Created At")]
    uid: Annotated[str, Field(title="Uid")]


class AttributeKey(RootModel[str]):
    root: Annotated[str, Field(max_length=100, min_length=1)]


class AttributeKeys(RootModel[list[AttributeKey]]):
    root: Annotated[
        list[AttributeKey],
        Field(
            description="All keys when absent",
            max_length=100,
            min_length=1,
            title="Attribute Keys",
        ),
    ]


class AttributeBatchIn(BaseModel):
    """
    Batch read of the calling project's attributes: up to 100 users x 100 keys.
    """

    attribute_keys: Annotated[
        AttributeKeys | None,
        Field(description="All keys when absent", title="Attribute Keys"),
    ] = None
    uids: Annotated[list[Uid], Field(max_length=100, min_length=1, title="Uids")]


class AttributeDeleteIn(BaseModel):
    """
    Keys to delete from the calling project's attributes of the user.
    """

    attribute_keys: Annotated[
        list[AttributeKey], Field(max_length=100, min_length=1, title="Attribute Keys")
    ]
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
