"""Models, part 10 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Generic

from pydantic import ConfigDict, Field

from ._models_1 import _T0, _T1, BaseModel
from ._models_3 import CountMeta, DayProject, GlobalDay, Meta
from ._models_4 import LegacyManager, LegacyMiningRecord, LegacyTeamUnit, ListMeta, ViewMeta
from ._models_5 import MiningTotals, MiningWebhookMeta
from ._models_6 import PageMeta, ProfileAttribute
from ._models_7 import (
    TypedResourceAddressBalanceAttributes,
    TypedResourceApplicationAttributes,
    TypedResourceApprovedApplicationAttributes,
    TypedResourceAttributeDeletionAttributes,
    TypedResourceAuctionAttributes,
    TypedResourceAuctionConfigAttributes,
    TypedResourceAuctionDetailAttributes,
)
from ._models_8 import (
    Email,
    TypedResourceAuthorizationAttributes,
    TypedResourceAvatarAttributes,
    TypedResourceBaseProfileAttributes,
    TypedResourceBidAttributes,
    TypedResourceBonusAttributes,
    TypedResourceDeliveryAttributes,
    TypedResourceDriftAttributes,
    TypedResourceEndpointAttributes,
    TypedResourceEstimateAttributes,
    TypedResourceFragmentConfigAttributes,
    TypedResourceHolderAttributes,
    TypedResourceHoldingAttributes,
    TypedResourceInterestAttributes,
    TypedResourceLoanAttributes,
    TypedResourceLockAttributes,
    TypedResourceLpAttributes,
    TypedResourceMccBalanceAttributes,
    TypedResourceMccPriceAttributes,
    TypedResourceMcdBalanceAttributes,
    TypedResourceMcdRewardAttributes,
    TypedResourceMemberAttributes,
    TypedResourceMembershipAttributes,
    TypedResourceMiningRecordAttributes,
    TypedResourceMiningSubmissionAttributes,
    TypedResourceNftAttributes,
    TypedResourceNftDetailAttributes,
    TypedResourceOAuthClientAttributes,
    TypedResourcePositionAttributes,
    TypedResourceProjectAttributeAttributes,
    TypedResourceProjectAttributeSetAttributes,
    TypedResourcePublicUserAttributes,
    TypedResourceRegisteredEndpointAttributes,
    TypedResourceRegisteredProjectAttributes,
    TypedResourceRetryAttributes,
    TypedResourceTokenTransactionAttributes,
)
from ._models_9 import GenericDataMeta


class FullProfileAttributes(BaseModel):
    """
    The user's base profile (the fields of ``GET /v1/users/me``, those the caller may not
    see set to null) and the project attributes the caller may see.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    api_keys_configured: bool | None
    avatar_url: str | None
    created_at: str
    display_name: str | None
    email: Email
    project_attributes: list[ProfileAttribute]
    role: str | None
    uid: str
    updated_at: str
    wallet_address: str | None


class GlobalAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    cached_seconds: Annotated[int, Field(description="The figures may be this old")]
    days: list[GlobalDay]
    since: str
    totals: MiningTotals


class LegacyMiningHistoryBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    records: list[LegacyMiningRecord]
    total: int


class LegacyTeamBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    manager: LegacyManager | None
    station: LegacyTeamUnit | None
    unit: LegacyTeamUnit | None


class GenericDataMeta_(BaseModel, Generic[_T0, _T1]):
    data: _T0
    meta: _T1


ListingAuthorizationAttributes = GenericDataMeta_[
    list[TypedResourceAuthorizationAttributes], CountMeta
]


ListingProjectAttributeAttributes = GenericDataMeta_[
    list[TypedResourceProjectAttributeAttributes], CountMeta
]


ListingProjectAttributeSetAttributes = GenericDataMeta_[
    list[TypedResourceProjectAttributeSetAttributes], CountMeta
]


ManyApplicationAttributes = GenericDataMeta_[list[TypedResourceApplicationAttributes], PageMeta]


ManyAuctionAttributes = GenericDataMeta_[list[TypedResourceAuctionAttributes], ListMeta]


ManyBidAttributes = GenericDataMeta_[list[TypedResourceBidAttributes], ListMeta]


ManyDeliveryAttributes = GenericDataMeta_[list[TypedResourceDeliveryAttributes], PageMeta]


ManyDriftAttributes = GenericDataMeta_[list[TypedResourceDriftAttributes], PageMeta]


ManyEndpointAttributes = GenericDataMeta_[list[TypedResourceEndpointAttributes], PageMeta]


ManyHolderAttributes = GenericDataMeta_[list[TypedResourceHolderAttributes], ListMeta]


ManyHoldingAttributes = GenericDataMeta_[list[TypedResourceHoldingAttributes], ListMeta]


ManyLoanAttributes = GenericDataMeta_[list[TypedResourceLoanAttributes], ListMeta]


ManyLockAttributes = GenericDataMeta_[list[TypedResourceLockAttributes], PageMeta]


ManyMcdRewardAttributes = GenericDataMeta_[list[TypedResourceMcdRewardAttributes], PageMeta]


ManyMemberAttributes = GenericDataMeta_[list[TypedResourceMemberAttributes], PageMeta]


ManyMiningRecordAttributes = GenericDataMeta_[list[TypedResourceMiningRecordAttributes], PageMeta]


ManyTokenTransactionAttributes = GenericDataMeta_[
    list[TypedResourceTokenTransactionAttributes], PageMeta
]


class MiningBatchItemAttributes(BaseModel):
    """
    One item of a batch: its own HTTP-like status, the submission or an RFC 7807 problem.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    activity: TypedResourceMiningSubmissionAttributes | None
    error: dict[str, Any] | None = None
    idempotency_key: Any
    status: int


class MiningStatsAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    days: list[DayProject]
    since: str
    totals: MiningTotals


MiningSubmitBody = GenericDataMeta[TypedResourceMiningSubmissionAttributes, MiningWebhookMeta]


OneAddressBalanceAttributes = GenericDataMeta_[TypedResourceAddressBalanceAttributes, Meta]


OneApplicationAttributes = GenericDataMeta_[TypedResourceApplicationAttributes, Meta]


OneApprovedApplicationAttributes = GenericDataMeta_[
    TypedResourceApprovedApplicationAttributes, Meta
]


OneAttributeDeletionAttributes = GenericDataMeta_[TypedResourceAttributeDeletionAttributes, Meta]


OneAuctionConfigAttributes = GenericDataMeta_[TypedResourceAuctionConfigAttributes, ViewMeta]


OneAuctionDetailAttributes = GenericDataMeta_[TypedResourceAuctionDetailAttributes, ViewMeta]


OneAuthorizationAttributes = GenericDataMeta_[TypedResourceAuthorizationAttributes, Meta]


OneAvatarAttributes = GenericDataMeta_[TypedResourceAvatarAttributes, Meta]


OneBaseProfileAttributes = GenericDataMeta_[TypedResourceBaseProfileAttributes, Meta]


OneBonusAttributes = GenericDataMeta_[TypedResourceBonusAttributes, Meta]


OneDeliveryAttributes = GenericDataMeta_[TypedResourceDeliveryAttributes, Meta]


OneEndpointAttributes = GenericDataMeta_[TypedResourceEndpointAttributes, Meta]


OneEstimateAttributes = GenericDataMeta_[TypedResourceEstimateAttributes, ViewMeta]


OneFragmentConfigAttributes = GenericDataMeta_[TypedResourceFragmentConfigAttributes, ViewMeta]


OneInterestAttributes = GenericDataMeta_[TypedResourceInterestAttributes, ViewMeta]


OneLoanAttributes = GenericDataMeta_[TypedResourceLoanAttributes, ViewMeta]


OneLockAttributes = GenericDataMeta_[TypedResourceLockAttributes, Meta]


OneLpAttributes = GenericDataMeta_[TypedResourceLpAttributes, ViewMeta]


OneMccBalanceAttributes = GenericDataMeta_[TypedResourceMccBalanceAttributes, Meta]


OneMccPriceAttributes = GenericDataMeta_[TypedResourceMccPriceAttributes, Meta]


OneMcdBalanceAttributes = GenericDataMeta_[TypedResourceMcdBalanceAttributes, Meta]


OneMembershipAttributes = GenericDataMeta_[TypedResourceMembershipAttributes, Meta]


OneMiningSubmissionAttributes = GenericDataMeta_[TypedResourceMiningSubmissionAttributes, Meta]


OneNftAttributes = GenericDataMeta_[TypedResourceNftAttributes, ViewMeta]


OneNftDetailAttributes = GenericDataMeta_[TypedResourceNftDetailAttributes, ViewMeta]


OneOAuthClientAttributes = GenericDataMeta_[TypedResourceOAuthClientAttributes, Meta]


OnePositionAttributes = GenericDataMeta_[TypedResourcePositionAttributes, ViewMeta]


OneProjectAttributeAttributes = GenericDataMeta_[TypedResourceProjectAttributeAttributes, Meta]


OnePublicUserAttributes = GenericDataMeta_[TypedResourcePublicUserAttributes, Meta]


OneRegisteredEndpointAttributes = GenericDataMeta_[TypedResourceRegisteredEndpointAttributes, Meta]


OneRegisteredProjectAttributes = GenericDataMeta_[TypedResourceRegisteredProjectAttributes, Meta]


OneRetryAttributes = GenericDataMeta_[TypedResourceRetryAttributes, Meta]
