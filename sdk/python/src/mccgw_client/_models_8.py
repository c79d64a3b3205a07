"""Models, part 8 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic, Literal

from pydantic import ConfigDict, Field

from ._models_1 import (
    _T0,
    AddressBalance,
    AdminProjectAttributes,
    ApiSecretAttributes,
    ApplicationAttributes,
    ApprovedApplicationAttributes,
    AttributeDeletionAttributes,
    BaseModel,
)
from ._models_2 import (
    AuctionAttributes,
    AuctionConfigAttributes,
    AuctionDetailAttributes,
    AuthorizationAttributes,
    AvatarAttributes,
    BaseProfileAttributes,
    BidAttributes,
    BonusAttributes,
)
from ._models_3 import DeliveryAttributes, DriftAttributes, EndpointAttributes
from ._models_4 import Level, LoansByStatus
from ._models_6 import Reason


class StatsAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    active_principal: str
    as_of: str | None
    available_liquidity: str
    borrow_rate_bps: int
    exchange_rate: Annotated[str, Field(description="Assets per LP token (6 decimals, floored)")]
    loans: int
    loans_by_status: LoansByStatus
    lp_supply: str | None
    pending_pool_interest: str
    pending_protocol_fee: str
    pool_accrual_overflow: bool
    recorded_total_borrowed: Annotated[
        str,
        Field(description="The pool's total_borrowed field (drifts upward, see docs/views.md)"),
    ]
    supply_rate_bps: int
    tvl: Annotated[
        str,
        Field(description="Deposits + accrued interest - protocol fees, accrued to now"),
    ]
    utilization_bps: int
    vault_balance: str | None


class StatusChangeIn(BaseModel):
    reason: Reason = None
    status: Literal["active", "maintenance", "testing", "discontinued", "deleted"]


class StatusRecordAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    changed_by: str | None
    created_at: str
    from_status: str | None
    project_id: str
    reason: str | None
    status: str


class TechTreeConfigAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    levels: list[Level]
    min_avg_input_usdc: Annotated[str, Field(description="Per member per day, decimal string")]
    min_members: int
    min_qualifying_days: int
    schedule: Annotated[str, Field(description="When the daily job runs")]
    station_capacity: int
    window_days: int


class TerritoryTotals(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    matrices: int
    sectors: int
    stations: int
    systems: int


class TokenResponse(BaseModel):
    access_token: str
    expires_in: int
    id_token: str | None = None
    refresh_token: str | None = None
    scope: str | None = None
    token_type: str


class TokenStats(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    custody_total: str
    decimals: int
    holders: int
    mint: str
    price_source: str | None = None
    price_usdc: str | None = None
    supply: str
    transactions_24h: int
    transactions_30d: int
    updated_at: str
    volume_24h: str
    volume_30d: str


class TokenTransaction(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: str
    counterparty: Annotated[str | None, Field(description="user uid, sending wallet, or project")]
    created_at: str
    currency: str
    direction: Literal["in", "out"]
    reference: str | None
    signature: str | None
    status: str
    type: Annotated[
        str,
        Field(
            description="deposit, transfer_in, transfer_out, settlement_in, settlement_out, mining_reward, credit, debit"
        ),
    ]


class TransferRequestIn(BaseModel):
    amount: Annotated[str, Field(examples=["12.5"])]
    currency: Literal["MCC", "MCD"]
    from_uid: Annotated[str, Field(max_length=100, min_length=1)]
    idempotency_key: str | None = None
    reference: Annotated[
        dict[str, Any] | None,
        Field(
            description="Identifiers of the business object; `lock_id` settles that fund lock",
            examples=[{"auction_id": "42", "lock_id": "lk_..."}],
        ),
    ] = None
    requires_onchain: Annotated[
        bool | None,
        Field(description="Recorded; every transfer settles on chain (the ledger mirrors custody)"),
    ] = True
    to_uid: Annotated[str, Field(max_length=100, min_length=1)]
    transfer_type: Annotated[
        str, Field(examples=["auction_settlement"], max_length=64, min_length=1)
    ]


class TransferStep(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    at: str
    reason: str | None
    status: str


class TypeAmounts(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    matrix: str
    sector: str
    station: str
    system: str


class GenericTyped(BaseModel, Generic[_T0]):
    attributes: _T0
    id: str
    type: str


TypedResourceAddressBalance = GenericTyped[AddressBalance]


TypedResourceAdminProjectAttributes = GenericTyped[AdminProjectAttributes]


TypedResourceApiSecretAttributes = GenericTyped[ApiSecretAttributes]


TypedResourceApplicationAttributes = GenericTyped[ApplicationAttributes]


TypedResourceApprovedApplicationAttributes = GenericTyped[ApprovedApplicationAttributes]


TypedResourceAttributeDeletionAttributes = GenericTyped[AttributeDeletionAttributes]


TypedResourceAuctionAttributes = GenericTyped[AuctionAttributes]


TypedResourceAuctionConfigAttributes = GenericTyped[AuctionConfigAttributes]


TypedResourceAuctionDetailAttributes = GenericTyped[AuctionDetailAttributes]


TypedResourceAuthorizationAttributes = GenericTyped[AuthorizationAttributes]


TypedResourceAvatarAttributes = GenericTyped[AvatarAttributes]


TypedResourceBaseProfileAttributes = GenericTyped[BaseProfileAttributes]


TypedResourceBidAttributes = GenericTyped[BidAttributes]


TypedResourceBonusAttributes = GenericTyped[BonusAttributes]


TypedResourceDeliveryAttributes = GenericTyped[DeliveryAttributes]


TypedResourceDriftAttributes = GenericTyped[DriftAttributes]


TypedResourceEndpointAttributes = GenericTyped[EndpointAttributes]
