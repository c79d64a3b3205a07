"""Models, part 5 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import AwareDatetime, ConfigDict, Field

from ._models_1 import BaseModel, IdempotencyKey
from ._models_3 import Meta
from ._models_4 import Amount


class LockAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: Amount
    available_balance: Annotated[
        str | None,
        Field(description="After a lock or unlock only: the user's available balance"),
    ] = None
    currency: Literal["MCC", "MCD"]
    locked_until: str | None
    reason: str
    reference_id: str | None
    status: Annotated[str, Field(description="locked, unlocked, settled or expired")]
    unlock_reason: Annotated[str | None, Field(description="After an unlock only")] = None
    user_uid: str


UserUid: TypeAlias = Annotated[str, Field(max_length=100, min_length=1)]


class LockIn(BaseModel):
    amount: Annotated[
        str,
        Field(description="Decimal string, > 0, at most 9 decimals", examples=["12.5"]),
    ]
    currency: Annotated[Literal["MCC", "MCD"], Field(examples=["MCC"])]
    expires_at: Annotated[
        AwareDatetime,
        Field(description="When the lock ends by itself (future, with offset)"),
    ]
    idempotency_key: IdempotencyKey = None
    reason: Annotated[str, Field(examples=["auction_bid"], max_length=100, min_length=1)]
    reference_id: Annotated[str | None, Field(examples=["auction-42"], max_length=200)] = None
    user_uid: UserUid


class LpAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    exchange_rate: str
    lending_pool: str
    lp_balance: str
    lp_mint: str
    share_of_pool: str
    token_accounts: list[str]
    value: str
    wallet: str


class MccBalance(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    available_balance: str
    deposit_address: str
    deposit_owner: str
    locked_balance: Annotated[str, Field(description="sum of active fund locks")]
    pending_out: str
    total_balance: str
    updated_at: str | None


class MccPrice(BaseModel):
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


class McdBalance(BaseModel):
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
