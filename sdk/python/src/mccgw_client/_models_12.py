"""Models, part 12 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel
from ._models_3 import ChainWriteView, Meta
from ._models_4 import Amount, ViewMeta
from ._models_8 import GenericTyped, StatusRecordAttributes, TransferStep, TypeAmounts
from ._models_9 import (
    TypedResourceRegisteredEndpointAttributes,
    TypedResourceRegisteredProjectAttributes,
    TypedResourceRetryAttributes,
    TypedResourceStatsAttributes,
    TypedResourceTechTreeConfigAttributes,
    TypedResourceTokenStats,
    UnitAttributes,
    UnitState,
    UnitStatsAttributes,
    UserAttributes,
)
from ._models_10 import (
    CollectionAttributes,
    GenericDataMeta_,
    UserProfileAttributes,
    VaultAttributes,
    VaultDetailAttributes,
    WalletNftAttributes,
    WebhookSecretAttributes,
    WhitelistEntryAttributes,
    WhitelistStatusAttributes,
)
from ._models_11 import (
    FullProfileAttributes,
    GlobalAttributes,
    MiningBatchItemAttributes,
    MiningStatsAttributes,
)

OneRegisteredEndpointAttributes = GenericDataMeta_[TypedResourceRegisteredEndpointAttributes, Meta]


OneRegisteredProjectAttributes = GenericDataMeta_[TypedResourceRegisteredProjectAttributes, Meta]


OneRetryAttributes = GenericDataMeta_[TypedResourceRetryAttributes, Meta]


OneStatsAttributes = GenericDataMeta_[TypedResourceStatsAttributes, ViewMeta]


OneTechTreeConfigAttributes = GenericDataMeta_[TypedResourceTechTreeConfigAttributes, Meta]


OneTokenStats = GenericDataMeta_[TypedResourceTokenStats, Meta]


class OracleAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    account: str
    authority: str
    collateral_values: TypeAmounts
    last_update: str | None
    max_borrow: TypeAmounts


class PoolAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
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


class ProjectStatusAttributes(BaseModel):
    """
    A project's status; reason, changed_by and created_at are those of the change that set
    it (its registration or approval when it never changed).
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    allows: list[str]
    changed_by: str | None
    created_at: str
    history: list[StatusRecordAttributes]
    name: str
    project_id: str
    reason: str | None
    status: str
    suspended: bool
    updated_at: str


class StatusChangeAttributes(BaseModel):
    """
    The admin's status change: the spec's fields at the top (reason, changed_by and
    created_at of this change), and the change record itself.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    change: StatusRecordAttributes
    changed_by: str | None
    created_at: str
    name: str
    project_id: str
    reason: str | None
    status: str
    updated_at: str


class StuckTransferAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: Amount
    block_height: int | None = None
    chain_write: ChainWriteView | None = None
    created_at: str
    currency: Literal["MCC", "MCD"]
    failure_reason: str | None = None
    finished_at: str | None = None
    from_uid: str
    history: list[TransferStep] | None = None
    lock_id: str | None
    onchain_at: str | None = None
    reference: dict[str, Any]
    requires_onchain: bool
    slot: int | None = None
    status: str
    to_uid: str
    transfer_type: str
    tx_signature: str | None = None
    updated_at: str | None = None


class TransferAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: Amount
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
    model_config = ConfigDict(
        extra="forbid",
    )
    bonus_multiplier: Annotated[float, Field(description="1 + bonus: 1.3 means a 30 % bonus")]
    bonus_percent: int
    station: str | None
    units: list[UnitState]
    window_end: str
    window_start: str


TypedResourceCollectionAttributes = GenericTyped[CollectionAttributes]


TypedResourceFullProfileAttributes = GenericTyped[FullProfileAttributes]


TypedResourceGlobalAttributes = GenericTyped[GlobalAttributes]


TypedResourceMiningBatchItemAttributes = GenericTyped[MiningBatchItemAttributes]


TypedResourceMiningStatsAttributes = GenericTyped[MiningStatsAttributes]


TypedResourcePoolAttributes = GenericTyped[PoolAttributes]


TypedResourceProjectStatusAttributes = GenericTyped[ProjectStatusAttributes]


TypedResourceStatusChangeAttributes = GenericTyped[StatusChangeAttributes]


TypedResourceStuckTransferAttributes = GenericTyped[StuckTransferAttributes]


TypedResourceTransferAttributes = GenericTyped[TransferAttributes]


TypedResourceTreeAttributes = GenericTyped[TreeAttributes]


TypedResourceUnitAttributes = GenericTyped[UnitAttributes]


TypedResourceUnitStatsAttributes = GenericTyped[UnitStatsAttributes]


TypedResourceUserAttributes = GenericTyped[UserAttributes]


TypedResourceUserProfileAttributes = GenericTyped[UserProfileAttributes]


TypedResourceVaultAttributes = GenericTyped[VaultAttributes]


TypedResourceVaultDetailAttributes = GenericTyped[VaultDetailAttributes]


TypedResourceWalletNftAttributes = GenericTyped[WalletNftAttributes]


TypedResourceWebhookSecretAttributes = GenericTyped[WebhookSecretAttributes]


TypedResourceWhitelistEntryAttributes = GenericTyped[WhitelistEntryAttributes]


TypedResourceWhitelistStatusAttributes = GenericTyped[WhitelistStatusAttributes]
