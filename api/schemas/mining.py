"""The typed success bodies of the mining and reward routes (the OpenAPI document shows them;
the bodies are built as dicts by ``api.envelope``, these models only describe them)."""

from __future__ import annotations

from typing import Any

from api.envelope import Meta
from api.typed import PageMeta, Shape, TypedResource


class MiningSubmissionAttributes(Shape):
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


class MiningWebhookMeta(Meta):
    webhook_url: str | None
    webhook_note: str


class MiningSubmitBody(Shape):
    data: TypedResource[MiningSubmissionAttributes]
    meta: MiningWebhookMeta


class MiningBatchItemAttributes(Shape):
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


class MiningRecordAttributes(Shape):
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


class McdRewardAttributes(Shape):
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


class LegacyMiningHistory(Shape):
    records: list[LegacyMiningRecord]
    total: int
