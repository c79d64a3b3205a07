"""Models, part 8 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import Field, RootModel

from ._models_1 import (
    AddressBalance,
    ApplicationAttrs,
    ApprovedAttrs,
    AttributeAttrs,
    BaseModel,
)
from ._models_2 import (
    AttributeDeletionAttrs,
    AuctionAttributes,
    AuctionDetailAttributes,
    AuthorizationAttributes,
    AvatarAttributes,
    BaseProfileAttributes,
    BidAttributes,
    BonusAttributes,
)
from ._models_3 import (
    ChainWriteView,
    DeliveryAttributes,
    DriftAttrs,
    EndpointAttributes,
    EstimateAttributes,
)
from ._models_4 import HistoryItem, HolderAttributes, HoldingAttributes, InterestAttributes
from ._models_5 import (
    LoanAttributes,
    LockAttributes,
    LpAttributes,
    MccBalance,
    MccPrice,
    McdBalance,
    McdRewardAttrs,
    MemberAttributes,
)
from ._models_6 import (
    MembershipAttributes,
    MiningRecordAttrs,
    MiningSubmissionAttrs,
    NftAttributes,
    NftDetailAttributes,
    OAuthClientAttrs,
    PositionAttributes,
)
from ._models_7 import (
    ProjectAttributesAttrs,
    PublicUserAttributes,
    RegisteredEndpointAttributes,
    RegisteredProjectAttrs,
    RetryAttrs,
    StatsAttributes,
)

_T0 = TypeVar("_T0")
_T1 = TypeVar("_T1")
_T2 = TypeVar("_T2")
_T3 = TypeVar("_T3")


class Reason2(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Reason")]


class StatusChangeIn(BaseModel):
    reason: Annotated[Reason2 | None, Field(title="Reason")] = None
    status: Annotated[
        Literal["active", "maintenance", "testing", "discontinued", "deleted"],
        Field(title="Status"),
    ]


class StatusRecordAttrs(BaseModel):
    changed_by: Annotated[str | None, Field(title="Changed By")]
    created_at: Annotated[str, Field(title="Created At")]
    from_status: Annotated[str | None, Field(title="From Status")]
    project_id: Annotated[str, Field(title="Project Id")]
    reason: Annotated[str | None, Field(title="Reason")]
    status: Annotated[str, Field(title="Status")]


class DetailedTransferAttrs(BaseModel):
    amount: Annotated[str, Field(title="Amount")]
    block_height: Annotated[int | None, Field(title="Block Height")]
    created_at: Annotated[str | None, Field(title="Created At")]
    currency: Annotated[str, Field(title="Currency")]
    failure_reason: Annotated[str | None, Field(title="Failure Reason")]
    finished_at: Annotated[str | None, Field(title="Finished At")]
    from_uid: Annotated[str, Field(title="From Uid")]
    history: Annotated[list[HistoryItem], Field(title="History")]
    lock_id: Annotated[str | None, Field(title="Lock Id")]
    reference: Annotated[dict[str, Any] | None, Field(title="Reference")]
    requires_onchain: Annotated[bool, Field(title="Requires Onchain")]
    slot: Annotated[int | None, Field(title="Slot")]
    status: Annotated[str, Field(title="Status")]
    to_uid: Annotated[str, Field(title="To Uid")]
    transfer_type: Annotated[str, Field(title="Transfer Type")]
    tx_signature: Annotated[str | None, Field(title="Tx Signature")]
    updated_at: Annotated[str | None, Field(title="Updated At")]


class StuckTransferAttrs(DetailedTransferAttrs):
    chain_write: ChainWriteView | None
    onchain_at: Annotated[str | None, Field(title="Onchain At")]


class TokenResponse(BaseModel):
    access_token: Annotated[str, Field(title="Access Token")]
    expires_in: Annotated[int, Field(title="Expires In")]
    id_token: Annotated[str | None, Field(title="Id Token")] = None
    refresh_token: Annotated[str | None, Field(title="Refresh Token")] = None
    scope: Annotated[str | None, Field(title="Scope")] = None
    token_type: Annotated[str, Field(title="Token Type")]


class TokenStats(BaseModel):
    custody_total: Annotated[str, Field(title="Custody Total")]
    decimals: Annotated[int, Field(title="Decimals")]
    holders: Annotated[int, Field(title="Holders")]
    mint: Annotated[str, Field(title="Mint")]
    price_source: Annotated[str | None, Field(title="Price Source")] = None
    price_usdc: Annotated[str | None, Field(title="Price Usdc")] = None
    supply: Annotated[str, Field(title="Supply")]
    transactions_24h: Annotated[int, Field(title="Transactions 24H")]
    transactions_30d: Annotated[int, Field(title="Transactions 30D")]
    updated_at: Annotated[str, Field(title="Updated At")]
    volume_24h: Annotated[str, Field(title="Volume 24H")]
    volume_30d: Annotated[str, Field(title="Volume 30D")]


class TokenTransaction(BaseModel):
    amount: Annotated[str, Field(title="Amount")]
    counterparty: Annotated[
        str | None,
        Field(description="user uid, sending wallet, or project", title="Counterparty"),
    ]
    created_at: Annotated[str, Field(title="Created At")]
    currency: Annotated[str, Field(title="Currency")]
    direction: Annotated[Literal["in", "out"], Field(title="Direction")]
    reference: Annotated[str | None, Field(title="Reference")]
    signature: Annotated[str | None, Field(title="Signature")]
    status: Annotated[str, Field(title="Status")]
    type: Annotated[
        str,
        Field(
            description="deposit, transfer_in, transfer_out, settlement_in, settlement_out, mining_reward, credit, debit",
            title="Type",
        ),
    ]


class TransferRequestIn(BaseModel):
    amount: Annotated[str, Field(examples=["12.5"], title="Amount")]
    currency: Annotated[Literal["MCC", "MCD"], Field(title="Currency")]
    from_uid: Annotated[str, Field(max_length=100, min_length=1, title="From Uid")]
    idempotency_key: Annotated[str | None, Field(title="Idempotency Key")] = None
    reference: Annotated[
        dict[str, Any] | None,
        Field(
            description="Identifiers of the business object; `lock_id` settles that fund lock",
            examples=[{"auction_id": "42", "lock_id": "lk_..."}],
            title="Reference",
        ),
    ] = None
    requires_onchain: Annotated[
        bool | None,
        Field(
            description="Recorded; every transfer settles on chain (the ledger mirrors custody)",
            title="Requires Onchain",
        ),
    ] = True
    to_uid: Annotated[str, Field(max_length=100, min_length=1, title="To Uid")]
    transfer_type: Annotated[
        str,
        Field(
            examples=["auction_settlement"],
            max_length=64,
            min_length=1,
            title="Transfer Type",
        ),
    ]


class TransferStep(BaseModel):
    at: Annotated[str, Field(title="At")]
    reason: Annotated[str | None, Field(title="Reason")]
    status: Annotated[str, Field(title="Status")]


class TypeAmounts(BaseModel):
    matrix: Annotated[str, Field(title="Matrix")]
    sector: Annotated[str, Field(title="Sector")]
    station: Annotated[str, Field(title="Station")]
    system: Annotated[str, Field(title="System")]


class GenericAttributesIdType(BaseModel, Generic[_T0]):
    attributes: _T0
    id: Annotated[str, Field(title="Id")]
    type: Annotated[str, Field(title="Type")]


TypedResourceAddressBalance = GenericAttributesIdType[AddressBalance]


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


TypedResourceStatsAttributes = GenericAttributesIdType[StatsAttributes]


TypedResourceStuckTransferAttrs = GenericAttributesIdType[StuckTransferAttrs]
