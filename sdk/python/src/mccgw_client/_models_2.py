"""Models, part 2 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel


class AttributeIn(BaseModel):
    attribute_key: Annotated[str, Field(examples=["auction_wins"], max_length=100, min_length=1)]
    attribute_value: Annotated[Any, Field(examples=[{"count": 3}])]
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Optional (the write is naturally idempotent); with one, a retry within 24 h is replayed, not run again"
        ),
    ] = None
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


class AuctionConfigAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    auction_duration_seconds: int
    authority: str
    created_at: str | None
    extension_duration_seconds: int
    extension_threshold_seconds: int
    is_initialized: bool
    is_paused: bool
    mcc_mint: str
    min_bid_increment_percent: int
    next_auction_id: int
    team_wallet: str
    territory_nft_program: str
    total_auctions: int
    total_cancelled: int
    total_completed: int
    total_volume: str
    updated_at: str | None


class AuctionDetailAttributes(BaseModel):
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
    escrow_account: str
    escrow_balance: str | None
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


class AuthorizationAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    granted_at: str
    project_id: str
    project_name: str | None
    revoked_at: str | None
    scopes: list[str]
    source: str
    updated_at: str


class AvatarAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    avatar_url: str
    bytes: int
    content_type: str
    height: int
    width: int


class BaseProfileAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    avatar_url: str | None
    created_at: str
    display_name: str | None
    role: str
    station_id: int | None
    uid: str
    unit_id: int | None
    wallet_address: str | None


class BatchIn(BaseModel):
    activities: Annotated[
        list[dict[str, Any]],
        Field(
            description="Mining activities, each with its own idempotency_key",
            max_length=100,
            min_length=1,
        ),
    ]
    idempotency_key: Annotated[
        str | None, Field(description="The key of the batch request itself")
    ] = None


class BidAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    amount: str
    auction_ended: bool | None
    auction_id: int
    auction_status: str | None
    bidder: str
    is_highest: bool
    is_refunded: bool
    placed_at: str | None
    status: str
    withdrawn_at: str | None


class BonusAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    bonus_multiplier: Annotated[
        float, Field(description="Applied to every mining reward: 1.3 = +30 %")
    ]
    bonus_percent: int


class BorrowChecks(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount_at_least_minimum: bool
    amount_at_most_maximum: bool
    borrows_not_paused: bool
    collateral_value_set: bool
    pool_accrual_ok: bool
    pool_active: bool
    within_available_liquidity: bool
    within_max_borrow: bool


class BuyoutAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    completed_at: str | None
    expires_at: str | None
    fragments_accepted: str
    fragments_to_buy: str
    initiated_at: str | None
    initiator: str
    payment_collected: str
    payment_mint: str
    price_per_fragment: str
    status: str
    total_buyout_amount: str
