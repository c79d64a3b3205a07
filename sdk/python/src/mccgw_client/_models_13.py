"""Models, part 13 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from ._models_3 import Meta
from ._models_4 import ListMeta, ViewMeta
from ._models_5 import MiningBatchMeta
from ._models_6 import PageMeta
from ._models_10 import GenericDataMeta, GenericDataMeta_
from ._models_12 import (
    TypedResourceCollectionAttributes,
    TypedResourceFullProfileAttributes,
    TypedResourceGlobalAttributes,
    TypedResourceMiningBatchItemAttributes,
    TypedResourceMiningStatsAttributes,
    TypedResourcePoolAttributes,
    TypedResourceProjectStatusAttributes,
    TypedResourceStatusChangeAttributes,
    TypedResourceStuckTransferAttributes,
    TypedResourceTransferAttributes,
    TypedResourceTreeAttributes,
    TypedResourceUnitAttributes,
    TypedResourceUnitStatsAttributes,
    TypedResourceUserAttributes,
    TypedResourceUserProfileAttributes,
    TypedResourceVaultAttributes,
    TypedResourceVaultDetailAttributes,
    TypedResourceWalletNftAttributes,
    TypedResourceWebhookSecretAttributes,
    TypedResourceWhitelistEntryAttributes,
    TypedResourceWhitelistStatusAttributes,
)

ManyStuckTransferAttributes = GenericDataMeta_[list[TypedResourceStuckTransferAttributes], PageMeta]


ManyUnitAttributes = GenericDataMeta_[list[TypedResourceUnitAttributes], PageMeta]


ManyVaultAttributes = GenericDataMeta_[list[TypedResourceVaultAttributes], ListMeta]


ManyWalletNftAttributes = GenericDataMeta_[list[TypedResourceWalletNftAttributes], ListMeta]


ManyWhitelistEntryAttributes = GenericDataMeta_[
    list[TypedResourceWhitelistEntryAttributes], PageMeta
]


MiningBatchBody = GenericDataMeta[list[TypedResourceMiningBatchItemAttributes], MiningBatchMeta]


OneCollectionAttributes = GenericDataMeta_[TypedResourceCollectionAttributes, ViewMeta]


OneFullProfileAttributes = GenericDataMeta_[TypedResourceFullProfileAttributes, Meta]


OneGlobalAttributes = GenericDataMeta_[TypedResourceGlobalAttributes, Meta]


OneMiningStatsAttributes = GenericDataMeta_[TypedResourceMiningStatsAttributes, Meta]


OnePoolAttributes = GenericDataMeta_[TypedResourcePoolAttributes, ViewMeta]


OneProjectStatusAttributes = GenericDataMeta_[TypedResourceProjectStatusAttributes, Meta]


OneStatusChangeAttributes = GenericDataMeta_[TypedResourceStatusChangeAttributes, Meta]


OneTransferAttributes = GenericDataMeta_[TypedResourceTransferAttributes, Meta]


OneTreeAttributes = GenericDataMeta_[TypedResourceTreeAttributes, Meta]


OneUnitAttributes = GenericDataMeta_[TypedResourceUnitAttributes, Meta]


OneUnitStatsAttributes = GenericDataMeta_[TypedResourceUnitStatsAttributes, Meta]


OneUserAttributes = GenericDataMeta_[TypedResourceUserAttributes, Meta]


OneUserProfileAttributes = GenericDataMeta_[TypedResourceUserProfileAttributes, Meta]


OneVaultDetailAttributes = GenericDataMeta_[TypedResourceVaultDetailAttributes, ViewMeta]


OneWebhookSecretAttributes = GenericDataMeta_[TypedResourceWebhookSecretAttributes, Meta]


OneWhitelistStatusAttributes = GenericDataMeta_[TypedResourceWhitelistStatusAttributes, Meta]
