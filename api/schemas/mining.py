"""The success bodies of the mining and reward routes: each resource's attributes are built by
their model (``of``), which is what the OpenAPI document shows."""

from __future__ import annotations

from typing import Any, Self

from api.envelope import Meta
from api.typed import Attributes, PageMeta, Shape, TypedResource
from core.money import to_decimal_string
from core.time import iso
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
        confirmed = row.status == "confirmed"
        return cls(
            status=row.status,
            user_uid=row.user_uid,
            activity_type=row.activity_type,
            mcd_estimated=to_decimal_string(row.mcd_amount, decimals),
            mcd_amount=to_decimal_string(row.mcd_amount, decimals) if confirmed else None,
            reason=row.reason,
            tx_signature=row.tx_signature,
            block_height=row.block_height,
            idempotency_key=row.idempotency_key,
            history=row.history,
            created_at=iso(row.created_at),
            updated_at=iso(row.updated_at),
            confirmed_at=iso(row.confirmed_at),
        )


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
        return cls(
            date=r.confirmed_at.date().isoformat() if r.confirmed_at else None,
            project_id=str(r.project_id),
            user_uid=r.user_uid,
            activity_type=r.activity_type,
            mcd_amount=to_decimal_string(r.mcd_amount, decimals),
            status=r.status,
            tx_signature=r.tx_signature,
            block_height=r.block_height,
            confirmed_at=iso(r.confirmed_at),
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
