"""Models, part 10 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeAlias

from pydantic import ConfigDict, Field

from ._models_1 import _T0, _T1, BaseModel, IdempotencyKey
from ._models_2 import BuyoutAttributes
from ._models_3 import Capacities, CountMeta, Meta
from ._models_5 import UserUid
from ._models_7 import ProofIn
from ._models_8 import TerritoryTotals
from ._models_9 import (
    TypedResourceProjectAttributeAttributes,
    TypedResourceProjectAttributeSetAttributes,
)


class UserProfileAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    api_keys_configured: bool
    avatar_url: str | None
    created_at: str
    display_name: str | None
    email: Annotated[str | None, Field(description="only with the `email` scope (or for an admin)")]
    role: str
    station_id: int | None
    uid: str
    unit_id: int | None
    updated_at: str
    username: str | None
    wallet_address: str | None


class VaultAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    circulating_fragments_recorded: str
    created_at: str | None
    fragment_mint: str | None
    fragment_name: str
    fragment_symbol: str
    nft_mint: str
    original_owner: str
    redeemed_at: str | None
    status: str
    total_fragments: str


class VaultDetailAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    buyout: BuyoutAttributes | None
    circulating_fragments_recorded: str
    created_at: str | None
    fragment_mint: str | None
    fragment_name: str
    fragment_symbol: str
    live_supply: str | None
    nft_mint: str
    original_owner: str
    redeemed_at: str | None
    status: str
    total_fragments: str


class WalletNftAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    created_at: str | None
    current_members: int
    custody: Annotated[
        Literal["wallet", "lending_loan", "fragment_vault"],
        Field(
            description="wallet = in the wallet's token account; lending_loan / fragment_vault = escrowed by that program for this wallet (holder is the escrowing account)"
        ),
    ]
    holder: str | None
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


class WebhookSecretAttributes(BaseModel):
    """
    The answer of a webhook secret roll: the new signing secret, shown once.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    endpoint_id: str
    previous_expires_at: str | None
    rolled_at: str
    secret: Annotated[str, Field(description="The new signing secret, shown once")]


class WhitelistEntryAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    add_tx: str | None
    created_at: str
    created_by: str | None
    last_tx: str | None
    onchain: dict[str, Any] | None
    pda_address: str
    pda_bump: int
    pending_action: str | None
    project_id: int
    project_name: str
    remove_tx: str | None
    status: str
    updated_at: str
    wallet_address: str


class WhitelistRemoved(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    message: str
    project_id: int
    remove_tx: str | None


class GenericDataMeta(BaseModel, Generic[_T0, _T1]):
    model_config = ConfigDict(
        extra="forbid",
    )
    data: _T0
    meta: _T1


WhitelistRemovedBody = GenericDataMeta[WhitelistRemoved, Meta]


class WhitelistStatusAttributes(BaseModel):
    add_tx: str | None
    created_at: str
    created_by: str | None
    last_tx: str | None
    onchain: dict[str, Any] | None
    pda_address: str
    pda_bump: int
    pending_action: str | None
    project_id: int
    project_name: str
    remove_tx: str | None
    status: str
    updated_at: str
    wallet_address: str


class WhitelistStatusIn(BaseModel):
    status: Literal["active", "suspended"]


class ActivityIn(BaseModel):
    activity_data: Annotated[
        dict[str, Any],
        Field(examples=[{"profit_usdc": 42.5, "trade_count": 12, "trade_volume_usdc": 1500}]),
    ]
    activity_type: Annotated[str, Field(examples=["trade"], pattern="^[A-Za-z0-9_.:-]{1,64}$")]
    idempotency_key: IdempotencyKey = None
    proof: ProofIn
    user_uid: UserUid


class CollectionAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    authority: str
    capacities: Capacities
    collection_master_edition: str
    collection_metadata: str
    collection_mint: str
    created_at: str | None
    is_initialized: bool
    name: str
    symbol: str
    totals: TerritoryTotals
    updated_at: str | None


class GenericDataMeta_(BaseModel, Generic[_T0, _T1]):
    data: _T0
    meta: _T1


CountedProjectAttributeAttributes = GenericDataMeta_[
    list[TypedResourceProjectAttributeAttributes], CountMeta
]


CountedProjectAttributeSetAttributes = GenericDataMeta_[
    list[TypedResourceProjectAttributeSetAttributes], CountMeta
]


EventType: TypeAlias = Literal[
    "mining.activity.verified",
    "mining.reward.confirmed",
    "funds.locked",
    "funds.unlocked",
    "transfer.completed",
    "transfer.failed",
    "funds.deposited",
]


class EndpointIn(BaseModel):
    events: Annotated[
        list[EventType],
        Field(examples=[["mining.reward.confirmed"]], min_length=1),
    ]
    idempotency_key: IdempotencyKey = None
    secret: Annotated[
        str | None,
        Field(
            description="Signing secret; omitted = one is generated and shown once in the response",
            max_length=256,
            min_length=16,
        ),
    ] = None
    url: Annotated[str, Field(examples=["https://game.example/hooks/mccgw"], max_length=2000)]
