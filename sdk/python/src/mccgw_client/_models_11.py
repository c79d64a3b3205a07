"""Models, part 11 of 13 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from ._models_1 import BaseModel
from ._models_3 import CountMeta, DayProject, GlobalDay, Meta
from ._models_4 import LegacyManager, LegacyMiningRecord, LegacyTeamUnit, ListMeta, ViewMeta
from ._models_5 import MiningTotals, MiningWebhookMeta
from ._models_6 import PageMeta, ProfileAttribute
from ._models_8 import (
    TypedResourceAddressBalance,
    TypedResourceAdminProjectAttributes,
    TypedResourceApiSecretAttributes,
    TypedResourceApplicationAttributes,
    TypedResourceApprovedApplicationAttributes,
    TypedResourceAttributeDeletionAttributes,
    TypedResourceAuctionAttributes,
    TypedResourceAuctionConfigAttributes,
    TypedResourceAuctionDetailAttributes,
    TypedResourceAuthorizationAttributes,
    TypedResourceAvatarAttributes,
    TypedResourceBaseProfileAttributes,
    TypedResourceBidAttributes,
    TypedResourceBonusAttributes,
    TypedResourceDeliveryAttributes,
    TypedResourceDriftAttributes,
    TypedResourceEndpointAttributes,
)
from ._models_9 import (
    TypedResourceEstimateAttributes,
    TypedResourceFragmentConfigAttributes,
    TypedResourceHolderAttributes,
    TypedResourceHoldingAttributes,
    TypedResourceInterestAttributes,
    TypedResourceLoanAttributes,
    TypedResourceLockAttributes,
    TypedResourceLpAttributes,
    TypedResourceMccBalance,
    TypedResourceMccPrice,
    TypedResourceMcdBalance,
    TypedResourceMcdRewardAttributes,
    TypedResourceMemberAttributes,
    TypedResourceMembershipAttributes,
    TypedResourceMiningRecordAttributes,
    TypedResourceMiningSubmissionAttributes,
    TypedResourceNftAttributes,
    TypedResourceNftDetailAttributes,
    TypedResourceOAuthClientAttributes,
    TypedResourceOAuthClientSecretAttributes,
    TypedResourcePositionAttributes,
    TypedResourceProjectAttributeAttributes,
    TypedResourcePublicUserAttributes,
    TypedResourceTokenTransaction,
)
from ._models_10 import EventType, GenericDataMeta, GenericDataMeta_


class EndpointPatch(BaseModel):
    enabled: Annotated[
        bool | None,
        Field(description="true re-enables a disabled endpoint (its pending deliveries resume)"),
    ] = None
    events: Annotated[
        list[EventType] | None,
        Field(min_length=1),
    ] = None
    idempotency_key: str | None = None
    secret: Annotated[str | None, Field(max_length=256, min_length=16)] = None
    url: Annotated[str | None, Field(max_length=2000)] = None


class FullProfileAttributes(BaseModel):
    """
    The user's base profile (the fields of ``GET /v1/users/{uid}``, those the caller may not
    see set to null) and the project attributes the caller may see.
    """

    project_attributes: list[ProfileAttribute]
    uid: str


class GlobalAttributes(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    cached_seconds: Annotated[int, Field(description="The figures may be this old")]
    days: list[GlobalDay]
    since: str
    totals: MiningTotals


class LegacyMiningHistory(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    records: list[LegacyMiningRecord]
    total: int


class LegacyTeam(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
    )
    manager: LegacyManager | None
    station: LegacyTeamUnit | None
    unit: LegacyTeamUnit | None


ListingAuthorizationAttributes = GenericDataMeta_[
    list[TypedResourceAuthorizationAttributes], CountMeta
]


ManyAdminProjectAttributes = GenericDataMeta_[list[TypedResourceAdminProjectAttributes], PageMeta]


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


ManyTokenTransaction = GenericDataMeta_[list[TypedResourceTokenTransaction], PageMeta]


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


OneAddressBalance = GenericDataMeta_[TypedResourceAddressBalance, Meta]


OneAdminProjectAttributes = GenericDataMeta_[TypedResourceAdminProjectAttributes, Meta]


OneApiSecretAttributes = GenericDataMeta_[TypedResourceApiSecretAttributes, Meta]


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


OneMccBalance = GenericDataMeta_[TypedResourceMccBalance, Meta]


OneMccPrice = GenericDataMeta_[TypedResourceMccPrice, Meta]


OneMcdBalance = GenericDataMeta_[TypedResourceMcdBalance, Meta]


OneMembershipAttributes = GenericDataMeta_[TypedResourceMembershipAttributes, Meta]


OneMiningSubmissionAttributes = GenericDataMeta_[TypedResourceMiningSubmissionAttributes, Meta]


OneNftAttributes = GenericDataMeta_[TypedResourceNftAttributes, ViewMeta]


OneNftDetailAttributes = GenericDataMeta_[TypedResourceNftDetailAttributes, ViewMeta]


OneOAuthClientAttributes = GenericDataMeta_[TypedResourceOAuthClientAttributes, Meta]


OneOAuthClientSecretAttributes = GenericDataMeta_[TypedResourceOAuthClientSecretAttributes, Meta]


OnePositionAttributes = GenericDataMeta_[TypedResourcePositionAttributes, ViewMeta]


OneProjectAttributeAttributes = GenericDataMeta_[TypedResourceProjectAttributeAttributes, Meta]


OnePublicUserAttributes = GenericDataMeta_[TypedResourcePublicUserAttributes, Meta]
