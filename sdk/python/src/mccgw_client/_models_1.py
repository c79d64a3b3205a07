"""Models, part 1 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias, TypeVar

from pydantic import BaseModel as _BaseModel
from pydantic import ConfigDict, Field, RootModel

_T0 = TypeVar("_T0")
_T1 = TypeVar("_T1")
_T2 = TypeVar("_T2")
_T3 = TypeVar("_T3")


class BaseModel(_BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )


class AddressBalanceAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    address: str
    token_accounts: int
    total_balance: Annotated[
        str, Field(description="sum of the wallet's MCC token accounts (finalized)")
    ]
    updated_at: str


class AdminActionIn(BaseModel):
    reason: Annotated[str | None, Field(max_length=200, min_length=1)] = "operator action"


class AliveBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    status: Literal["ok"]


class ApplicationAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    api_key: str | None
    application_id: str
    company_name: str | None
    created_at: str
    developer_email: str
    developer_uid: str
    mcc_wallet_address: str | None
    mcd_wallet_address: str
    project_description: str | None
    project_id: int | None
    project_name: str
    rejection_reason: str | None
    reviewed_at: str | None
    reviewed_by: str | None
    status: str
    updated_at: str
    website_url: str | None
    whitelist_bump: int | None
    whitelist_pda: str | None
    whitelist_tx: str | None


class ApplicationIn(BaseModel):
    """
    A developer's application for a project (developer_uid/email come from the token).
    """

    company_name: Annotated[str | None, Field(max_length=100)] = None
    mcc_wallet_address: Annotated[
        str | None, Field(description="Base58 chain address, optional")
    ] = None
    mcd_wallet_address: Annotated[
        str, Field(description="Base58 chain address (32 bytes), required")
    ]
    project_description: Annotated[str | None, Field(max_length=5000)] = None
    project_name: Annotated[str, Field(max_length=100, min_length=3)]
    website_url: Annotated[str | None, Field(max_length=255)] = None


class ApproveIn(BaseModel):
    """
    Optional: the project scopes the approved project gets (default: every one).
    """

    allowed_scopes: Annotated[list[str] | None, Field(examples=[["funds:read"]], max_length=20)] = (
        None
    )


class ApprovedApplicationAttributes(BaseModel):
    """
    The approve answer: the application, its api_secret (shown once) and OAuth client.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    api_key: str | None
    api_secret: str
    application_id: str
    client_type: str | None = None
    company_name: str | None
    created_at: str
    developer_email: str
    developer_uid: str
    mcc_wallet_address: str | None
    mcd_wallet_address: str
    oauth_client_id: str | None = None
    project_description: str | None
    project_id: int | None
    project_name: str
    redirect_uris: list[str] | None = None
    rejection_reason: str | None
    reviewed_at: str | None
    reviewed_by: str | None
    scopes: list[str] | None = None
    status: str
    updated_at: str
    website_url: str | None
    whitelist_bump: int | None
    whitelist_pda: str | None
    whitelist_tx: str | None


class Attempt(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    at: str
    attempt: int
    error: str | None
    latency_ms: int | None
    status_code: int | None


class AttributeKey(RootModel[str]):
    root: Annotated[str, Field(max_length=100, min_length=1)]


class Uid(RootModel[str]):
    root: Annotated[str, Field(max_length=100, min_length=1)]


class AttributeBatchIn(BaseModel):
    """
    Batch read of the calling project's attributes: up to 100 users x 100 keys.
    """

    attribute_keys: Annotated[
        list[AttributeKey] | None,
        Field(description="All keys when absent", max_length=100, min_length=1),
    ] = None
    uids: Annotated[list[Uid], Field(max_length=100, min_length=1)]


IdempotencyKey: TypeAlias = Annotated[
    str | None,
    Field(description="Required unless the Idempotency-Key header is sent"),
]


class AttributeDeleteIn(BaseModel):
    """
    Keys to delete from the calling project's attributes of the user.
    """

    attribute_keys: Annotated[list[AttributeKey], Field(max_length=100, min_length=1)]
    idempotency_key: IdempotencyKey = None


class AttributeDeletionAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    deleted: list[str]
    not_found: list[str]
    project_id: str
    uid: str


class AttributeIn(BaseModel):
    attribute_key: Annotated[str, Field(examples=["auction_wins"], max_length=100, min_length=1)]
    attribute_value: Annotated[Any, Field(examples=[{"count": 3}])]
    idempotency_key: IdempotencyKey = None
    visibility: Literal["public", "private", "authorized"] | None = "private"


class AttributeValue(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    updated_at: str
    value: Any
    visibility: str


class AuctionAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    auction_id: int
    auction_type: str
    bid_count: int
    buy_now_price: str | None
    completed_at: str | None
    created_at: str | None
    creator: str
    current_price: str
    end_time: str | None
    ended_unsettled: bool
    extension_count: int
    highest_bidder: str | None
    is_biddable: bool
    is_ended: bool
    min_next_bid: str | None
    nft_mint: str | None
    proceeds_recipient: str
    seconds_left: int
    settled_amount: str
    start_time: str | None
    starting_price: str
    status: str
    territory_id: int
    territory_type: str
