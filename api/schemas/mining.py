"""The success bodies of the mining and reward routes: each resource's attributes are built by
their model (``of``), which is what the OpenAPI document shows."""

from __future__ import annotations

from typing import Any, Self

from api.envelope import Meta
from api.typed import Attributes, PageMeta, Shape, TypedResource
from core.money import to_decimal_string
from db.models.mining import MiningSubmission


class MiningSubmissionAttributes(Attributes):
    """A ``mining_activity`` resource: one submission, its reward and its history."""

    status: str
    user_uid: str
    activity_type: str
    mcd_estimated: str
    mcd_amount: str | None
    reason: str | None
    tx_signature: str | None
    block_height: int | None
    idempotency_key: str
    history: list[dict[str, Any]]
    created_at: str | None
    updated_at: str | None
    confirmed_at: str | None

    @classmethod
    def of(cls, row: MiningSubmission, decimals: int) -> Self:
        amount = to_decimal_string(row.mcd_amount, decimals)
        confirmed = amount if row.status == "confirmed" else None
        return cls.of_row(row, mcd_estimated=amount, mcd_amount=confirmed)


class MiningWebhookMeta(Meta):
    webhook_url: str | None
    webhook_note: str


class MiningSubmitBody(Shape):
    data: TypedResource[MiningSubmissionAttributes]
    meta: MiningWebhookMeta


class MiningBatchItemAttributes(Attributes):
    """One item of a batch: its own HTTP-like status, the submission or an RFC 7807 problem."""

    idempotency_key: Any
    status: int
    activity: TypedResource[MiningSubmissionAttributes] | None
    error: dict[str, Any] | None = None


class MiningBatchMeta(PageMeta):
    webhook_url: str | None
    webhook_note: str
    accepted: int
    refused: int


class MiningBatchBody(Shape):
    data: list[TypedResource[MiningBatchItemAttributes]]
    meta: MiningBatchMeta


class MiningRecordAttributes(Attributes):
    """A ``mining_record``: one confirmed reward."""

    date: str | None
    project_id: str
    user_uid: str
    activity_type: str
    mcd_amount: str
    status: str
    tx_signature: str | None
    block_height: int | None
    confirmed_at: str | None

    @classmethod
    def of(cls, r: MiningSubmission, decimals: int) -> Self:
        return cls.of_row(
            r,
            date=r.confirmed_at.date().isoformat() if r.confirmed_at else None,
            project_id=str(r.project_id),
            mcd_amount=to_decimal_string(r.mcd_amount, decimals),
        )


class McdRewardAttributes(Attributes):
    """An ``mcd_reward``: a user's confirmed rewards of one UTC day and project."""

    date: str
    project_id: str
    project_name: str | None
    amount: str
    activities: int
    source: str


class LegacyMiningRecord(Shape):
    date: str
    project: str
    amount: float
    status: str


class LegacyMiningHistoryBody(Shape):
    records: list[LegacyMiningRecord]
    total: int
