"""Models, part 7 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic, Literal

from pydantic import Field

from ._models_1 import (
    _T0,
    AddressBalance,
    AdminProjectAttrs,
    ApiSecretRolledAttrs,
    ApplicationAttrs,
    ApprovedAttrs,
    AttributeAttrs,
    AttributeDeletionAttrs,
    BaseModel,
)
from ._models_2 import (
    AuctionAttributes,
    AuctionDetailAttributes,
    AuthorizationAttributes,
    AvatarAttributes,
    BaseProfileAttributes,
    BidAttributes,
    BonusAttributes,
    ClientSecretRolledAttrs,
)
from ._models_3 import (
    DeliveryAttributes,
    DriftAttrs,
    EndpointAttributes,
    EstimateAttributes,
    HolderAttributes,
    HoldingAttributes,
    InterestAttributes,
)
from ._models_4 import (
    LoanAttributes,
    LockAttributes,
    LpAttributes,
    MccBalance,
    MccPrice,
    McdBalance,
    McdRewardAttrs,
    MemberAttributes,
    MembershipAttributes,
    MiningRecordAttrs,
)
from ._models_5 import (
    MiningSubmissionAttrs,
    NftAttributes,
    NftDetailAttributes,
    OAuthClientAttrs,
    PositionAttributes,
    ProjectAttributesAttrs,
    PublicUserAttributes,
)
from ._models_6 import (
    RegisteredEndpointAttributes,
    RegisteredProjectAttrs,
    RetryAttrs,
    SecretRolledAttributes,
    StatsAttributes,
    StuckTransferAttrs,
    TokenStats,
)


class TokenTransaction(BaseModel):
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
    at: str
    reason: str | None
    status: str


class TypeAmounts(BaseModel):
    matrix: str
    sector: str
    station: str
    system: str


class GenericAttributesIdType(BaseModel, Generic[_T0]):
    attributes: _T0
    id: str
    type: str


TypedResourceAddressBalance = GenericAttributesIdType[AddressBalance]


TypedResourceAdminProjectAttrs = GenericAttributesIdType[AdminProjectAttrs]


TypedResourceApiSecretRolledAttrs = GenericAttributesIdType[ApiSecretRolledAttrs]


TypedResourceApplicationAttrs = GenericAttributesIdType[ApplicationAttrs]


TypedResourceApprovedAttrs = GenericAttributesIdType[ApprovedAttrs]


TypedResourceAttributeAttrs = GenericAttributesIdType[AttributeAttrs]


TypedResourceAttributeDeletionAttrs = GenericAttributesIdType[AttributeDeletionAttrs]


TypedResourceAuctionAttributes = GenericAttributesIdType[AuctionAttributes]


TypedResourceAuctionDetailAttributes = GenericAttributesIdType[AuctionDetailAttributes]


TypedResourceAuthorizationAttributes = GenericAttributesIdType[AuthorizationAttributes]


TypedResourceAvatarAttributes = GenericAttributesIdType[AvatarAttributes]


TypedResourceBaseProfileAttributes = GenericAttributesIdType[BaseProfileAttributes]


TypedResourceBidAttributes = GenericAttributesIdType[BidAttributes]


TypedResourceBonusAttributes = GenericAttributesIdType[BonusAttributes]


TypedResourceClientSecretRolledAttrs = GenericAttributesIdType[ClientSecretRolledAttrs]


TypedResourceDeliveryAttributes = GenericAttributesIdType[DeliveryAttributes]


TypedResourceDriftAttrs = GenericAttributesIdType[DriftAttrs]


TypedResourceEndpointAttributes = GenericAttributesIdType[EndpointAttributes]


TypedResourceEstimateAttributes = GenericAttributesIdType[EstimateAttributes]


TypedResourceHolderAttributes = GenericAttributesIdType[HolderAttributes]


TypedResourceHoldingAttributes = GenericAttributesIdType[HoldingAttributes]


TypedResourceInterestAttributes = GenericAttributesIdType[InterestAttributes]


TypedResourceLoanAttributes = GenericAttributesIdType[LoanAttributes]


TypedResourceLockAttributes = GenericAttributesIdType[LockAttributes]


TypedResourceLpAttributes = GenericAttributesIdType[LpAttributes]


TypedResourceMccBalance = GenericAttributesIdType[MccBalance]


TypedResourceMccPrice = GenericAttributesIdType[MccPrice]


TypedResourceMcdBalance = GenericAttributesIdType[McdBalance]


TypedResourceMcdRewardAttrs = GenericAttributesIdType[McdRewardAttrs]


TypedResourceMemberAttributes = GenericAttributesIdType[MemberAttributes]


TypedResourceMembershipAttributes = GenericAttributesIdType[MembershipAttributes]


TypedResourceMiningRecordAttrs = GenericAttributesIdType[MiningRecordAttrs]


TypedResourceMiningSubmissionAttrs = GenericAttributesIdType[MiningSubmissionAttrs]


TypedResourceNftAttributes = GenericAttributesIdType[NftAttributes]


TypedResourceNftDetailAttributes = GenericAttributesIdType[NftDetailAttributes]


TypedResourceOAuthClientAttrs = GenericAttributesIdType[OAuthClientAttrs]


TypedResourcePositionAttributes = GenericAttributesIdType[PositionAttributes]


TypedResourceProjectAttributesAttrs = GenericAttributesIdType[ProjectAttributesAttrs]


TypedResourcePublicUserAttributes = GenericAttributesIdType[PublicUserAttributes]


TypedResourceRegisteredEndpointAttributes = GenericAttributesIdType[RegisteredEndpointAttributes]


TypedResourceRegisteredProjectAttrs = GenericAttributesIdType[RegisteredProjectAttrs]


TypedResourceRetryAttrs = GenericAttributesIdType[RetryAttrs]


TypedResourceSecretRolledAttributes = GenericAttributesIdType[SecretRolledAttributes]


TypedResourceStatsAttributes = GenericAttributesIdType[StatsAttributes]


TypedResourceStuckTransferAttrs = GenericAttributesIdType[StuckTransferAttrs]


TypedResourceTokenStats = GenericAttributesIdType[TokenStats]


TypedResourceTokenTransaction = GenericAttributesIdType[TokenTransaction]
