"""Models, part 11 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel
from ._models_3 import DayProject
from ._models_4 import ViewMeta
from ._models_6 import Meta, MiningWebhookMeta, PageMeta
from ._models_8 import (
    DetailedTransferAttrs,
    GenericAttributesIdType,
    StatusRecordAttrs,
    TransferStep,
    TypeAmounts,
    TypedResourceAddressBalance,
    TypedResourceApplicationAttrs,
    TypedResourceApprovedAttrs,
    TypedResourceAttributeAttrs,
    TypedResourceAttributeDeletionAttrs,
    TypedResourceAuctionDetailAttributes,
    TypedResourceAuthorizationAttributes,
    TypedResourceAvatarAttributes,
    TypedResourceBaseProfileAttributes,
    TypedResourceBonusAttributes,
    TypedResourceDeliveryAttributes,
    TypedResourceEndpointAttributes,
    TypedResourceEstimateAttributes,
    TypedResourceInterestAttributes,
    TypedResourceLoanAttributes,
    TypedResourceLockAttributes,
    TypedResourceLpAttributes,
    TypedResourceMccBalance,
    TypedResourceMccPrice,
    TypedResourceMcdBalance,
    TypedResourceMembershipAttributes,
    TypedResourceMiningSubmissionAttrs,
    TypedResourceNftAttributes,
    TypedResourceNftDetailAttributes,
    TypedResourceOAuthClientAttrs,
    TypedResourcePositionAttributes,
    TypedResourcePublicUserAttributes,
    TypedResourceRegisteredEndpointAttributes,
    TypedResourceRegisteredProjectAttrs,
    TypedResourceRetryAttrs,
    TypedResourceStatsAttributes,
    TypedResourceStuckTransferAttrs,
)
from ._models_9 import (
    TypedResourceTokenStats,
    TypedResourceTokenTransaction,
    UnitAttributes,
    UnitState,
    UnitStatsAttributes,
    UserAttributes,
    UserProfileAttributes,
    VaultAttributes,
    VaultDetailAttributes,
    WalletNftAttributes,
)
from ._models_10 import (
    ApiRoutesMiningStatsTotals,
    ApiTypedTypedResourceConfigAttributes1,
    CollectionAttributes,
    FullProfileAttrs,
    GenericDataMeta,
    GenericDataMeta_,
    GlobalAttributes,
    WhitelistEntryAttrs,
    WhitelistStatusAttrs,
)

ManyStuckTransferAttrs = GenericDataMeta_[TypedResourceStuckTransferAttrs, PageMeta]


ManyTokenTransaction = GenericDataMeta_[TypedResourceTokenTransaction, PageMeta]


class MiningBatchItemAttrs(BaseModel):
    """
    One item of a batch: its own HTTP-like status, the submission or an RFC 7807 problem.
    """

    activity: TypedResourceMiningSubmissionAttrs | None
    error: Annotated[dict[str, Any] | None, Field(title="Error")] = None
    idempotency_key: Annotated[Any, Field(title="Idempotency Key")]
    status: Annotated[int, Field(title="Status")]


class MiningStatsAttributes(BaseModel):
    days: Annotated[list[DayProject], Field(title="Days")]
    since: Annotated[str, Field(title="Since")]
    totals: ApiRoutesMiningStatsTotals


MiningSubmitBody = GenericDataMeta[TypedResourceMiningSubmissionAttrs, MiningWebhookMeta]


OneAddressBalance = GenericDataMeta[TypedResourceAddressBalance, Meta]


OneApplicationAttrs = GenericDataMeta[TypedResourceApplicationAttrs, Meta]


OneApprovedAttrs = GenericDataMeta[TypedResourceApprovedAttrs, Meta]


OneAttributeAttrs = GenericDataMeta[TypedResourceAttributeAttrs, Meta]


OneAttributeDeletionAttrs = GenericDataMeta[TypedResourceAttributeDeletionAttrs, Meta]


OneAuctionDetailAttributes = GenericDataMeta[TypedResourceAuctionDetailAttributes, ViewMeta]


OneAuthorizationAttributes = GenericDataMeta[TypedResourceAuthorizationAttributes, Meta]


OneAvatarAttributes = GenericDataMeta[TypedResourceAvatarAttributes, Meta]


OneBaseProfileAttributes = GenericDataMeta[TypedResourceBaseProfileAttributes, Meta]


OneBonusAttributes = GenericDataMeta[TypedResourceBonusAttributes, Meta]


OneDeliveryAttributes = GenericDataMeta[TypedResourceDeliveryAttributes, Meta]


OneEndpointAttributes = GenericDataMeta[TypedResourceEndpointAttributes, Meta]


OneEstimateAttributes = GenericDataMeta[TypedResourceEstimateAttributes, ViewMeta]


OneInterestAttributes = GenericDataMeta[TypedResourceInterestAttributes, ViewMeta]


OneLoanAttributes = GenericDataMeta[TypedResourceLoanAttributes, ViewMeta]


OneLockAttributes = GenericDataMeta[TypedResourceLockAttributes, Meta]


OneLpAttributes = GenericDataMeta[TypedResourceLpAttributes, ViewMeta]


OneMccBalance = GenericDataMeta[TypedResourceMccBalance, Meta]


OneMccPrice = GenericDataMeta[TypedResourceMccPrice, Meta]


OneMcdBalance = GenericDataMeta[TypedResourceMcdBalance, Meta]


OneMembershipAttributes = GenericDataMeta[TypedResourceMembershipAttributes, Meta]


OneMiningSubmissionAttrs = GenericDataMeta[TypedResourceMiningSubmissionAttrs, Meta]


OneNftAttributes = GenericDataMeta[TypedResourceNftAttributes, ViewMeta]


OneNftDetailAttributes = GenericDataMeta[TypedResourceNftDetailAttributes, ViewMeta]


OneOAuthClientAttrs = GenericDataMeta[TypedResourceOAuthClientAttrs, Meta]


OnePositionAttributes = GenericDataMeta[TypedResourcePositionAttributes, ViewMeta]


OnePublicUserAttributes = GenericDataMeta[TypedResourcePublicUserAttributes, Meta]


OneRegisteredEndpointAttributes = GenericDataMeta[TypedResourceRegisteredEndpointAttributes, Meta]


OneRegisteredProjectAttrs = GenericDataMeta[TypedResourceRegisteredProjectAttrs, Meta]


OneRetryAttrs = GenericDataMeta[TypedResourceRetryAttrs, Meta]


OneStatsAttributes = GenericDataMeta[TypedResourceStatsAttributes, ViewMeta]


OneTokenStats = GenericDataMeta[TypedResourceTokenStats, Meta]


class OracleAttributes(BaseModel):
    account: Annotated[str, Field(title="Account")]
    authority: Annotated[str, Field(title="Authority")]
    collateral_values: TypeAmounts
    last_update: Annotated[str | None, Field(title="Last Update")]
    max_borrow: TypeAmounts


class PoolAttributes(BaseModel):
    accrued_interest: Annotated[str, Field(title="Accrued Interest")]
    asset_mint: Annotated[str, Field(title="Asset Mint")]
    authority: Annotated[str, Field(title="Authority")]
    base_rate_bps: Annotated[int, Field(title="Base Rate Bps")]
    borrow_rate_bps: Annotated[int, Field(title="Borrow Rate Bps")]
    borrows_paused: Annotated[bool, Field(title="Borrows Paused")]
    created_at: Annotated[str | None, Field(title="Created At")]
    deposits_paused: Annotated[bool, Field(title="Deposits Paused")]
    is_active: Annotated[bool, Field(title="Is Active")]
    last_update_at: Annotated[str | None, Field(title="Last Update At")]
    lp_mint: Annotated[str, Field(title="Lp Mint")]
    max_ltv_bps: Annotated[int, Field(title="Max Ltv Bps")]
    name: Annotated[str, Field(title="Name")]
    optimal_utilization_bps: Annotated[int, Field(title="Optimal Utilization Bps")]
    oracle: OracleAttributes | None
    protocol_fees: Annotated[str, Field(title="Protocol Fees")]
    slope1_bps: Annotated[int, Field(title="Slope1 Bps")]
    slope2_bps: Annotated[int, Field(title="Slope2 Bps")]
    supply_rate_bps: Annotated[int, Field(title="Supply Rate Bps")]
    total_borrowed: Annotated[str, Field(title="Total Borrowed")]
    total_deposits: Annotated[str, Field(title="Total Deposits")]
    total_lp_supply: Annotated[str, Field(title="Total Lp Supply")]
    updated_at: Annotated[str | None, Field(title="Updated At")]
    utilization_bps: Annotated[int, Field(title="Utilization Bps")]
    vault: Annotated[str, Field(title="Vault")]


class ProjectStatusAttrs(BaseModel):
    allows: Annotated[list[str], Field(title="Allows")]
    history: Annotated[list[StatusRecordAttrs], Field(title="History")]
    name: Annotated[str, Field(title="Name")]
    project_id: Annotated[str, Field(title="Project Id")]
    status: Annotated[str, Field(title="Status")]
    suspended: Annotated[bool, Field(title="Suspended")]
    updated_at: Annotated[str, Field(title="Updated At")]


class StatusChangeAttrs(BaseModel):
    change: StatusRecordAttrs
    name: Annotated[str, Field(title="Name")]
    project_id: Annotated[str, Field(title="Project Id")]
    status: Annotated[str, Field(title="Status")]
    updated_at: Annotated[str, Field(title="Updated At")]


class TransferAttributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    amount: Annotated[str, Field(description="Decimal string", title="Amount")]
    block_height: Annotated[int | None, Field(title="Block Height")] = None
    created_at: Annotated[str, Field(title="Created At")]
    currency: Annotated[Literal["MCC", "MCD"], Field(title="Currency")]
    failure_reason: Annotated[str | None, Field(title="Failure Reason")] = None
    finished_at: Annotated[str | None, Field(title="Finished At")] = None
    from_uid: Annotated[str, Field(title="From Uid")]
    history: Annotated[list[TransferStep] | None, Field(title="History")] = None
    lock_id: Annotated[str | None, Field(title="Lock Id")]
    reference: Annotated[dict[str, Any], Field(title="Reference")]
    requires_onchain: Annotated[bool, Field(title="Requires Onchain")]
    slot: Annotated[int | None, Field(title="Slot")] = None
    status: Annotated[str, Field(title="Status")]
    to_uid: Annotated[str, Field(title="To Uid")]
    transfer_type: Annotated[str, Field(title="Transfer Type")]
    tx_signature: Annotated[str | None, Field(title="Tx Signature")] = None
    updated_at: Annotated[str | None, Field(title="Updated At")] = None


class TreeAttributes(BaseModel):
    bonus_multiplier: Annotated[
        float,
        Field(description="1 + bonus: 1.3 means a 30 % bonus", title="Bonus Multiplier"),
    ]
    bonus_percent: Annotated[int, Field(title="Bonus Percent")]
    station: Annotated[str | None, Field(title="Station")]
    units: Annotated[list[UnitState], Field(title="Units")]
    window_end: Annotated[str, Field(title="Window End")]
    window_start: Annotated[str, Field(title="Window Start")]


TypedResourceCollectionAttributes = GenericAttributesIdType[CollectionAttributes]


TypedResourceDetailedTransferAttrs = GenericAttributesIdType[DetailedTransferAttrs]


TypedResourceFullProfileAttrs = GenericAttributesIdType[FullProfileAttrs]


TypedResourceGlobalAttributes = GenericAttributesIdType[GlobalAttributes]


TypedResourceMiningBatchItemAttrs = GenericAttributesIdType[MiningBatchItemAttrs]


TypedResourceMiningStatsAttributes = GenericAttributesIdType[MiningStatsAttributes]


TypedResourcePoolAttributes = GenericAttributesIdType[PoolAttributes]


TypedResourceProjectStatusAttrs = GenericAttributesIdType[ProjectStatusAttrs]


TypedResourceStatusChangeAttrs = GenericAttributesIdType[StatusChangeAttrs]


TypedResourceTransferAttributes = GenericAttributesIdType[TransferAttributes]


TypedResourceTreeAttributes = GenericAttributesIdType[TreeAttributes]


TypedResourceUnitAttributes = GenericAttributesIdType[UnitAttributes]


TypedResourceUnitStatsAttributes = GenericAttributesIdType[UnitStatsAttributes]


TypedResourceUserAttributes = GenericAttributesIdType[UserAttributes]


TypedResourceUserProfileAttributes = GenericAttributesIdType[UserProfileAttributes]


TypedResourceVaultAttributes = GenericAttributesIdType[VaultAttributes]


TypedResourceVaultDetailAttributes = GenericAttributesIdType[VaultDetailAttributes]


TypedResourceWalletNftAttributes = GenericAttributesIdType[WalletNftAttributes]


TypedResourceWhitelistEntryAttrs = GenericAttributesIdType[WhitelistEntryAttrs]


TypedResourceWhitelistStatusAttrs = GenericAttributesIdType[WhitelistStatusAttrs]


ApiTypedOneConfigAttributes = GenericDataMeta[ApiTypedTypedResourceConfigAttributes1, Meta]
