"""Models, part 9 of 9 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from ._models_2 import Meta
from ._models_3 import ViewMeta
from ._models_7 import GenericDataMeta
from ._models_8 import (
    TypedResourceProjectStatusAttrs,
    TypedResourceStatusChangeAttrs,
    TypedResourceTransferAttributes,
    TypedResourceTreeAttributes,
    TypedResourceUnitAttributes,
    TypedResourceUnitStatsAttributes,
    TypedResourceUserAttributes,
    TypedResourceUserProfileAttributes,
    TypedResourceVaultDetailAttributes,
    TypedResourceWhitelistStatusAttrs,
)

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
