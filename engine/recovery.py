"""Records whose workflow may never have started.

The API starts a record's workflow after committing it; if the process dies in between (or
Temporal was unreachable), the record is durable but unattended. The recovery sweep finds
those records and starts their workflows by their derived ids (a no-op for a running one):
transfers still ``pending`` after ``stale_after``, fund locks still active well past their
``expires_at``, mining submissions still ``pending_verification`` after ``stale_after``
(verification moves every submission of a workflow at once, so a pending one means its
workflow never ran), approved projects whose whitelist entry is still ``pending``, and
admin whitelist changes still pending after ``stale_after``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from core.workflow_ids import (
    approval_workflow_id,
    lock_workflow_id,
    transfer_workflow_id,
    whitelist_change_workflow_id,
)
from db.models.engine import Transfer
from db.models.ledger import Hold
from db.models.mining import MiningSubmission
from db.models.onboarding import McdWhitelistEntry, ProjectApplication


@dataclass
class Orphan:
    # "transfer" | "lock" | "mining" | "approval" (user_uid: the approving admin) | "whitelist"
    # (record_id: the change's op key)
    kind: str
    record_id: str
    workflow_id: str
    project_id: int
    user_uid: str
    currency: str
    expires_at: str | None = None  # ISO, for locks
    # Mining: every submission of the workflow (a batch has many), in id order.
    record_ids: list[str] = field(default_factory=list)
    action: str = ""  # whitelist: suspend | activate | remove


async def find_orphans(
    session: AsyncSession, *, stale_after: timedelta, limit: int = 500
) -> list[Orphan]:
    cutoff = datetime.now(UTC) - stale_after
    orphans: list[Orphan] = []
    pending = await session.scalars(
        select(Transfer)
        .where(Transfer.status == "pending", Transfer.created_at < cutoff)
        .order_by(Transfer.created_at)
        .limit(limit)
    )
    for t in pending:
        orphans.append(
            Orphan(
                "transfer",
                t.id,
                t.workflow_id or transfer_workflow_id(t.id),
                t.project_id,
                t.from_uid,
                t.currency,
            )
        )
    overdue = await session.scalars(
        select(Hold)
        .where(
            Hold.status == "active",
            Hold.project_id.is_not(None),
            Hold.expires_at.is_not(None),
            Hold.expires_at < cutoff,
        )
        .order_by(Hold.expires_at)
        .limit(limit)
    )
    for h in overdue:
        assert h.project_id is not None and h.expires_at is not None
        orphans.append(
            Orphan(
                "lock",
                h.id,
                lock_workflow_id(h.id),
                h.project_id,
                h.user_uid,
                h.currency,
                h.expires_at.isoformat(),
            )
        )
    orphans.extend(await _mining_orphans(session, cutoff, limit))
    orphans.extend(await _approval_orphans(session, cutoff, limit))
    orphans.extend(await _whitelist_orphans(session, cutoff, limit))
    return orphans


async def _mining_orphans(session: AsyncSession, cutoff: datetime, limit: int) -> list[Orphan]:
    stale = (
        select(MiningSubmission.workflow_id)
        .where(
            MiningSubmission.status == "pending_verification",
            MiningSubmission.created_at < cutoff,
        )
        .group_by(MiningSubmission.workflow_id)
        .order_by(func.min(MiningSubmission.created_at))
        .limit(limit)
    )
    rows = await session.execute(
        select(
            MiningSubmission.workflow_id,
            MiningSubmission.id,
            MiningSubmission.project_id,
            MiningSubmission.user_uid,
        )
        .where(MiningSubmission.workflow_id.in_(stale.scalar_subquery()))
        .order_by(MiningSubmission.workflow_id, MiningSubmission.id)
    )
    by_workflow: dict[str, Orphan] = {}
    for workflow_id, submission_id, project_id, user_uid in rows:
        orphan = by_workflow.get(workflow_id)
        if orphan is None:
            orphan = by_workflow[workflow_id] = Orphan(
                "mining", submission_id, workflow_id, project_id, user_uid, "MCD"
            )
        orphan.record_ids.append(submission_id)
    return list(by_workflow.values())


async def _approval_orphans(session: AsyncSession, cutoff: datetime, limit: int) -> list[Orphan]:
    approving = await session.scalars(
        select(ProjectApplication)
        .where(
            ProjectApplication.status == "approved",
            ProjectApplication.whitelist_status == "pending",  # a refused one is "failed"
            ProjectApplication.updated_at < cutoff,
        )
        .order_by(ProjectApplication.updated_at)
        .limit(limit)
    )
    return [
        Orphan(
            "approval",
            str(a.id),
            approval_workflow_id(str(a.id)),
            a.project_id or 0,
            a.reviewed_by or "",
            "",
        )
        for a in approving
    ]


async def _whitelist_orphans(session: AsyncSession, cutoff: datetime, limit: int) -> list[Orphan]:
    """Admin whitelist changes recorded as pending whose workflow may never have started (the
    API died between its commit and the start); a running one is left alone by its id."""
    pending = await session.scalars(
        select(McdWhitelistEntry)
        .where(
            McdWhitelistEntry.pending_op_key.is_not(None),
            McdWhitelistEntry.pending_action.is_not(None),
            McdWhitelistEntry.updated_at < cutoff,
        )
        .order_by(McdWhitelistEntry.updated_at)
        .limit(limit)
    )
    orphans = []
    for e in pending:
        assert e.pending_op_key is not None and e.pending_action is not None
        key = e.pending_op_key
        orphans.append(
            Orphan(
                "whitelist", key, whitelist_change_workflow_id(key), e.project_id, "", "",
                action=e.pending_action,
            )
        )  # fmt: skip
    return orphans
