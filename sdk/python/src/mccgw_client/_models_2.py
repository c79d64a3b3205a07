"""Models, part 2 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, RootModel

from ._models_1 import BaseModel


class AttributeDeletionAttrs(BaseModel):
    deleted: Annotated[list[str], Field(title="Deleted")]
    not_found: Annotated[list[str], Field(title="Not Found")]
    project_id: Annotated[str, Field(title="Project Id")]
    uid: Annotated[str, Field(title="Uid")]


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


class AttributeValue(BaseModel):
    updated_at: Annotated[str, Field(title="Updated At")]
    value: Annotated[Any, Field(title="Value")]
    visibility: Annotated[str, Field(title="Visibility")]


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


class AuthorizationAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    granted_at: Annotated[str, Field(title="Granted At")]
    project_id: Annotated[str, Field(title="Project Id")]
    project_name: Annotated[str | None, Field(title="Project Name")]
    revoked_at: Annotated[str | None, Field(title="Revoked At")]
    scopes: Annotated[list[str], Field(title="Scopes")]
    source: Annotated[str, Field(title="Source")]
    updated_at: Annotated[str, Field(title="Updated At")]


class AvatarAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    avatar_url: Annotated[str, Field(title="Avatar Url")]
    bytes: Annotated[int, Field(title="Bytes")]
    content_type: Annotated[str, Field(title="Content Type")]
    height: Annotated[int, Field(title="Height")]
    width: Annotated[int, Field(title="Width")]


class BaseProfileAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
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


class BonusAttributes(BaseModel):
    bonus_multiplier: Annotated[
        float,
        Field(
            description="Applied to every mining reward: 1.3 = +30 %",
            title="Bonus Multiplier",
        ),
    ]
    bonus_percent: Annotated[int, Field(title="Bonus Percent")]


class Liquidity(BaseModel):
    exchange_rate: Annotated[str, Field(title="Exchange Rate")]
    lp_balance: Annotated[str, Field(title="Lp Balance")]
    share_of_pool: Annotated[str, Field(title="Share Of Pool")]
    value: Annotated[str, Field(title="Value")]


class BorrowChecks(BaseModel):
    amount_at_least_minimum: Annotated[bool, Field(title="Amount At Least Minimum")]
    amount_at_most_maximum: Annotated[bool, Field(title="Amount At Most Maximum")]
    borrows_not_paused: Annotated[bool, Field(title="Borrows Not Paused")]
    collateral_value_set: Annotated[bool, Field(title="Collateral Value Set")]
    pool_accrual_ok: Annotated[bool, Field(title="Pool Accrual Ok")]
    pool_active: Annotated[bool, Field(title="Pool Active")]
    within_available_liquidity: Annotated[bool, Field(title="Within Available Liquidity")]
    within_max_borrow: Annotated[bool, Field(title="Within Max Borrow")]


class BuyoutAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    completed_at: Annotated[str | None, Field(title="Completed At")]
    expires_at: Annotated[str | None, Field(title="Expires At")]
    fragments_accepted: Annotated[str, Field(title="Fragments Accepted")]
    fragments_to_buy: Annotated[str, Field(title="Fragments To Buy")]
    initiated_at: Annotated[str | None, Field(title="Initiated At")]
    initiator: Annotated[str, Field(title="Initiator")]
    payment_collected: Annotated[str, Field(title="Payment Collected")]
    payment_mint: Annotated[str, Field(title="Payment Mint")]
    price_per_fragment: Annotated[str, Field(title="Price Per Fragment")]
    status: Annotated[str, Field(title="Status")]
    total_buyout_amount: Annotated[str, Field(title="Total Buyout Amount")]


class DurationSeconds(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=3153600000, title="Duration Seconds")]


class RateBps(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="Annual rate; omitted = the pool's current rate",
            ge=0,
            le=1000000,
            title="Rate Bps",
        ),
    ]
