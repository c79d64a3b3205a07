"""Models, part 1 of 8 (re-exported by models.py)."""

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


class CompanyName(RootModel[str]):
    root: Annotated[str, Field(max_length=100, title="Company Name")]


class Description(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Description")]


class ProjectDescription(RootModel[str]):
    root: Annotated[str, Field(max_length=5000, title="Project Description")]


class Url(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Url")]


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


class Uid(RootModel[str]):
    root: Annotated[str, Field(max_length=100, min_length=1)]


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


class AttributeIn(BaseModel):
    attribute_key: Annotated[
        str,
        Field(
            examples=["auction_wins"],
            max_length=100,
            min_length=1,
            title="Attribute Key",
        ),
    ]
    attribute_value: Annotated[Any, Field(examples=[{"count": 3}], title="Attribute Value")]
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None
    visibility: Annotated[
        Literal["public", "private", "authorized"] | None, Field(title="Visibility")
    ] = "private"


class AuctionAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    auction_id: Annotated[int, Field(title="Auction Id")]
    auction_type: Annotated[str, Field(title="Auction Type")]
    bid_count: Annotated[int, Field(title="Bid Count")]
    buy_now_price: Annotated[str | None, Field(title="Buy Now Price")]
    completed_at: Annotated[str | None, Field(title="Completed At")]
    created_at: Annotated[str | None, Field(title="Created At")]
    creator: Annotated[str, Field(title="Creator")]
    current_price: Annotated[str, Field(title="Current Price")]
    end_time: Annotated[str | None, Field(title="End Time")]
    ended_unsettled: Annotated[bool, Field(title="Ended Unsettled")]
    extension_count: Annotated[int, Field(title="Extension Count")]
    highest_bidder: Annotated[str | None, Field(title="Highest Bidder")]
    is_biddable: Annotated[bool, Field(title="Is Biddable")]
    is_ended: Annotated[bool, Field(title="Is Ended")]
    min_next_bid: Annotated[str | None, Field(title="Min Next Bid")]
    nft_mint: Annotated[str | None, Field(title="Nft Mint")]
    proceeds_recipient: Annotated[str, Field(title="Proceeds Recipient")]
    seconds_left: Annotated[int, Field(title="Seconds Left")]
    settled_amount: Annotated[str, Field(title="Settled Amount")]
    start_time: Annotated[str | None, Field(title="Start Time")]
    starting_price: Annotated[str, Field(title="Starting Price")]
    status: Annotated[str, Field(title="Status")]
    territory_id: Annotated[int, Field(title="Territory Id")]
    territory_type: Annotated[str, Field(title="Territory Type")]


class AuctionDetailAttributes(AuctionAttributes):
    escrow_account: Annotated[str, Field(title="Escrow Account")]
    escrow_balance: Annotated[str | None, Field(title="Escrow Balance")]


class AvatarAttributes(BaseModel):
    avatar_url: Annotated[str, Field(title="Avatar Url")]
    bytes: Annotated[int, Field(title="Bytes")]
    content_type: Annotated[str, Field(title="Content Type")]
    height: Annotated[int, Field(title="Height")]
    width: Annotated[int, Field(title="Width")]


class BaseProfileAttributes(BaseModel):
    avatar_url: Annotated[str | None, Field(title="Avatar Url")]
    created_at: Annotated[str, Field(title="Created At")]
    display_name: Annotated[str | None, Field(title="Display Name")]
    role: Annotated[str, Field(title="Role")]
    station_id: Annotated[int | None, Field(title="Station Id")]
    uid: Annotated[str, Field(title="Uid")]
    unit_id: Annotated[int | None, Field(title="Unit Id")]
    wallet_address: Annotated[str | None, Field(title="Wallet Address")]


class BatchIn(BaseModel):
    activities: Annotated[
        list[dict[str, Any]],
        Field(
            description="Mining activities, each with its own idempotency_key",
            max_length=100,
            min_length=1,
            title="Activities",
        ),
    ]
    idempotency_key: Annotated[
        str | None,
        Field(description="The key of the batch request itself", title="Idempotency Key"),
    ] = None


class BidAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    amount: Annotated[str, Field(title="Amount")]
    auction_ended: Annotated[bool | None, Field(title="Auction Ended")]
    auction_id: Annotated[int, Field(title="Auction Id")]
    auction_status: Annotated[str | None, Field(title="Auction Status")]
    bidder: Annotated[str, Field(title="Bidder")]
    is_highest: Annotated[bool, Field(title="Is Highest")]
    is_refunded: Annotated[bool, Field(title="Is Refunded")]
    placed_at: Annotated[str | None, Field(title="Placed At")]
    status: Annotated[str, Field(title="Status")]
    withdrawn_at: Annotated[str | None, Field(title="Withdrawn At")]
