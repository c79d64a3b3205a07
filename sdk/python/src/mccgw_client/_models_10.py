"""Models, part 10 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ._models_1 import BaseModel
from ._models_2 import Meta
from ._models_4 import ViewMeta
from ._models_6 import DetailedTransferAttrs, StatusRecordAttrs
from ._models_7 import (
    GenericAttributesIdType,
    TransferStep,
    TypeAmounts,
    TypedResourceAttributeDeletionAttrs,
    TypedResourceAuctionDetailAttributes,
    TypedResourceAuthorizationAttributes,
    TypedResourceAvatarAttributes,
    TypedResourceBaseProfileAttributes,
    TypedResourceBonusAttributes,
    TypedResourceClientSecretRolledAttrs,
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
    TypedResourceSecretRolledAttributes,
    TypedResourceStatsAttributes,
    TypedResourceTokenStats,
)
from ._models_8 import (
    GenericDataMeta,
    UnitAttributes,
    UnitState,
    UnitStatsAttributes,
    UserAttributes,
    UserProfileAttributes,
    VaultAttributes,
    VaultDetailAttributes,
)
from ._models_9 import (
    CollectionAttributes,
    FullProfileAttrs,
    GlobalAttributes,
    MiningBatchItemAttrs,
    MiningStatsAttributes,
)

OneAttributeDeletionAttrs = GenericDataMeta[TypedResourceAttributeDeletionAttrs, Meta]


OneAuctionDetailAttributes = GenericDataMeta[TypedResourceAuctionDetailAttributes, ViewMeta]


OneAuthorizationAttributes = GenericDataMeta[TypedResourceAuthorizationAttributes, Meta]


OneAvatarAttributes = GenericDataMeta[TypedResourceAvatarAttributes, Meta]


OneBaseProfileAttributes = GenericDataMeta[TypedResourceBaseProfileAttributes, Meta]


OneBonusAttributes = GenericDataMeta[TypedResourceBonusAttributes, Meta]


OneClientSecretRolledAttrs = GenericDataMeta[TypedResourceClientSecretRolledAttrs, Meta]


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


OneSecretRolledAttributes = GenericDataMeta[TypedResourceSecretRolledAttributes, Meta]


OneStatsAttributes = GenericDataMeta[TypedResourceStatsAttributes, ViewMeta]


OneTokenStats = GenericDataMeta[TypedResourceTokenStats, Meta]


class OracleAttributes(BaseModel):
    account: str
    authority: str
    collateral_values: TypeAmounts
    last_update: str | None
    max_borrow: TypeAmounts


class PoolAttributes(BaseModel):
    accrued_interest: str
    asset_mint: str
    authority: str
    base_rate_bps: int
    borrow_rate_bps: int
    borrows_paused: bool
    created_at: str | None
    deposits_paused: bool
    is_active: bool
    last_update_at: str | None
    lp_mint: str
    max_ltv_bps: int
    name: str
    optimal_utilization_bps: int
    oracle: OracleAttributes | None
    protocol_fees: str
    slope1_bps: int
    slope2_bps: int
    supply_rate_bps: int
    total_borrowed: str
    total_deposits: str
    total_lp_supply: str
    updated_at: str | None
    utilization_bps: int
    vault: str


class ProjectStatusAttrs(BaseModel):
    allows: list[str]
    history: list[StatusRecordAttrs]
    name: str
    project_id: str
    status: str
    suspended: bool
    updated_at: str


class StatusChangeAttrs(BaseModel):
    change: StatusRecordAttrs
    name: str
    project_id: str
    status: str
    updated_at: str


class TransferAttributes(BaseModel):
    amount: Annotated[str, Field(description="Decimal string")]
    block_height: int | None = None
    created_at: str
    currency: Literal["MCC", "MCD"]
    failure_reason: str | None = None
    finished_at: str | None = None
    from_uid: str
    history: list[TransferStep] | None = None
    lock_id: str | None
    reference: dict[str, Any]
    requires_onchain: bool
    slot: int | None = None
    status: str
    to_uid: str
    transfer_type: str
    tx_signature: str | None = None
    updated_at: str | None = None


class TreeAttributes(BaseModel):
    bonus_multiplier: Annotated[float, Field(description="1 + bonus: 1.3 means a 30 % bonus")]
    bonus_percent: int
    station: str | None
    units: list[UnitState]
    window_end: str
    window_start: str


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
