"""Models, part 12 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from ._models_2 import Meta
from ._models_4 import ViewMeta
from ._models_9 import GenericDataMeta_
from ._models_11 import (
    TypedResourceUnitStatsAttributes,
    TypedResourceUserAttributes,
    TypedResourceUserProfileAttributes,
    TypedResourceVaultDetailAttributes,
    TypedResourceWhitelistStatusAttributes,
)

OneUnitStatsAttributes = GenericDataMeta_[TypedResourceUnitStatsAttributes, Meta]


OneUserAttributes = GenericDataMeta_[TypedResourceUserAttributes, Meta]


OneUserProfileAttributes = GenericDataMeta_[TypedResourceUserProfileAttributes, Meta]


OneVaultDetailAttributes = GenericDataMeta_[TypedResourceVaultDetailAttributes, ViewMeta]


OneWhitelistStatusAttributes = GenericDataMeta_[TypedResourceWhitelistStatusAttributes, Meta]
