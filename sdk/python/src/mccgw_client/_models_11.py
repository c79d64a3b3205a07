"""Models, part 11 of 11 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from ._models_2 import Meta
from ._models_4 import ListMeta, MiningBatchMeta, ViewMeta
from ._models_5 import PageMeta
from ._models_7 import GenericAttributesIdType
from ._models_8 import (
    GenericDataMeta,
    WalletNftAttributes,
    WhitelistEntryAttrs,
    WhitelistStatusAttrs,
)
from ._models_9 import ApiTypedTypedResourceConfigAttributes1
from ._models_10 import (
    TypedResourceCollectionAttributes,
    TypedResourceDetailedTransferAttrs,
    TypedResourceFullProfileAttrs,
    TypedResourceGlobalAttributes,
    TypedResourceMiningBatchItemAttrs,
    TypedResourceMiningStatsAttributes,
    TypedResourcePoolAttributes,
    TypedResourceProjectStatusAttrs,
    TypedResourceStatusChangeAttrs,
    TypedResourceTransferAttributes,
    TypedResourceTreeAttributes,
    TypedResourceUnitAttributes,
    TypedResourceUnitStatsAttributes,
    TypedResourceUserAttributes,
    TypedResourceUserProfileAttributes,
    TypedResourceVaultAttributes,
    TypedResourceVaultDetailAttributes,
)

TypedResourceWalletNftAttributes = GenericAttributesIdType[WalletNftAttributes]


TypedResourceWhitelistEntryAttrs = GenericAttributesIdType[WhitelistEntryAttrs]


TypedResourceWhitelistStatusAttrs = GenericAttributesIdType[WhitelistStatusAttrs]


ApiTypedOneConfigAttributes = GenericDataMeta[ApiTypedTypedResourceConfigAttributes1, Meta]


ManyUnitAttributes = GenericDataMeta[list[TypedResourceUnitAttributes], PageMeta]


ManyVaultAttributes = GenericDataMeta[list[TypedResourceVaultAttributes], ListMeta]


ManyWalletNftAttributes = GenericDataMeta[list[TypedResourceWalletNftAttributes], ListMeta]


ManyWhitelistEntryAttrs = GenericDataMeta[list[TypedResourceWhitelistEntryAttrs], PageMeta]


MiningBatchBody = GenericDataMeta[list[TypedResourceMiningBatchItemAttrs], MiningBatchMeta]


OneCollectionAttributes = GenericDataMeta[TypedResourceCollectionAttributes, ViewMeta]


OneDetailedTransferAttrs = GenericDataMeta[TypedResourceDetailedTransferAttrs, Meta]


OneFullProfileAttrs = GenericDataMeta[TypedResourceFullProfileAttrs, Meta]


OneGlobalAttributes = GenericDataMeta[TypedResourceGlobalAttributes, Meta]


OneMiningStatsAttributes = GenericDataMeta[TypedResourceMiningStatsAttributes, Meta]


OnePoolAttributes = GenericDataMeta[TypedResourcePoolAttributes, ViewMeta]


OneProjectStatusAttrs = GenericDataMeta[TypedResourceProjectStatusAttrs, Meta]


OneStatusChangeAttrs = GenericDataMeta[TypedResourceStatusChangeAttrs, Meta]


OneTransferAttributes = GenericDataMeta[TypedResourceTransferAttributes, Meta]


OneTreeAttributes = GenericDataMeta[TypedResourceTreeAttributes, Meta]


OneUnitAttributes = GenericDataMeta[TypedResourceUnitAttributes, Meta]


OneUnitStatsAttributes = GenericDataMeta[TypedResourceUnitStatsAttributes, Meta]


OneUserAttributes = GenericDataMeta[TypedResourceUserAttributes, Meta]


OneUserProfileAttributes = GenericDataMeta[TypedResourceUserProfileAttributes, Meta]


OneVaultDetailAttributes = GenericDataMeta[TypedResourceVaultDetailAttributes, ViewMeta]


OneWhitelistStatusAttrs = GenericDataMeta[TypedResourceWhitelistStatusAttrs, Meta]
