"""Models, part 13 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from ._models_3 import Meta
from ._models_4 import ViewMeta
from ._models_10 import GenericDataMeta_
from ._models_12 import (
    TypedResourceMiningStatsAttributes,
    TypedResourcePoolAttributes,
    TypedResourceProjectStatusAttributes,
    TypedResourceStatusChangeAttributes,
    TypedResourceTransferAttributes,
    TypedResourceTreeAttributes,
    TypedResourceUnitAttributes,
    TypedResourceUnitStatsAttributes,
    TypedResourceUserAttributes,
    TypedResourceUserProfileAttributes,
    TypedResourceVaultDetailAttributes,
    TypedResourceWebhookSecretAttributes,
    TypedResourceWhitelistStatusAttributes,
)

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
