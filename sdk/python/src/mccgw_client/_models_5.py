"""Models, part 5 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_3 import Meta


class MccPriceAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    base_price_usdc: Annotated[str | None, Field(description="mean of the last closes (up to 180)")]
    buyback_price_usdc: Annotated[
        str | None, Field(description="base + floor(base * premium / 10000)")
    ]
    close_at: Annotated[str | None, Field(description="the newest close")]
    onchain_updated_at: str | None
    points: Annotated[int, Field(description="closes in the mean (180 once that many exist)")]
    premium_bps: int
    price_usdc: Annotated[str, Field(description="the price the rule gives now")]
    source: Literal["market", "admin", "default"]
    tx_signature: Annotated[str | None, Field(description="the last on-chain update_price")]
    updated_at: Annotated[str, Field(description="when the source value was observed or set")]


class MccPriceIn(BaseModel):
    idempotency_key: IdempotencyKey = None
    price_usdc: Annotated[
        str, Field(description="6 decimals at most, 0.01 to 1000", examples=["10.5"])
    ]


class McdBalanceAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    available_balance: str
    deposit_address: Annotated[
        str, Field(description="the user's custody token account: send here")
    ]
    deposit_owner: Annotated[
        str, Field(description="owner of the deposit address (the custody authority)")
    ]
    frozen_balance: Annotated[str, Field(description="sum of active fund locks")]
    pending_out: Annotated[str, Field(description="outgoing transfers not yet final")]
    total_balance: Annotated[
        str, Field(description="finalized custody balance as booked (decimal)")
    ]
    updated_at: str | None


class McdRewardAttributes(BaseModel):
    """
    An ``mcd_reward``: a user's confirmed rewards of one UTC day and project.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    activities: int
    amount: str
    date: str
    project_id: str
    project_name: str | None
    source: str


class MemberAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    display_name: str | None
    joined_at: str
    station: str
    uid: str


class MembershipAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    joined_at: str | None
    left_at: str | None
    moved: Annotated[bool, Field(description="False when nothing changed")]
    station: str | None
    user_uid: str


class MiningBatchMeta(Meta):
    accepted: int
    page: int
    per_page: int
    refused: int
    total: int
    webhook_note: str
    webhook_url: str | None


class MiningRecordAttributes(BaseModel):
    """
    A ``mining_record``: one confirmed reward.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    activity_type: str
    block_height: int | None
    confirmed_at: str | None
    date: str | None
    mcd_amount: str
    project_id: str
    status: str
    tx_signature: str | None
    user_uid: str


class MiningSubmissionAttributes(BaseModel):
    """
    A ``mining_activity`` resource: one submission, its reward and its history.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
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


class MiningTotals(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    activities: int
    mcd_amount: str
    trade_volume_usdc: str


class MiningWebhookMeta(Meta):
    webhook_note: str
    webhook_url: str | None


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


class OAuthError(BaseModel):
    """
    RFC 6749 section 5.2 error response.
    """

    error: str
    error_description: str | None = None
