"""Records whose workflow may never have started.

The API starts a record's workflow after committing it; if the process dies in between (or
Temporal was unreachable), the record is durable but unattended. The recovery sweep finds
those records and starts their workflows by their derived ids (a no-op for a running one):
transfers still ``pending`` after ``stale_after``, fund locks still active well past their
``expires_at``, and project approvals still ``approving`` (without a recorded failure).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.engine import Transfer
from db.models.ledger import Hold
from db.models.onboarding import ProjectApplication
from engine.ids import lock_workflow_id, transfer_workflow_id
from onboarding.applications import approval_workflow_id


@dataclass
class Orphan:
    kind: str  # "transfer" | "lock" | "approval" (user_uid: the approving administrator)
    record_id: str
    workflow_id: str
    project_id: int
    user_uid: str
    currency: str
    expires_at: str | None = None  # ISO, for locks


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
    approving = await session.scalars(
        select(ProjectApplication)
        .where(
            ProjectApplication.status == "approving",
            ProjectApplication.approval_error.is_(None),  # a refused one waits for an admin
            ProjectApplication.updated_at < cutoff,
        )
        .order_by(ProjectApplication.updated_at)
        .limit(limit)
    )
    for a in approving:
        workflow_id = approval_workflow_id(str(a.id))
        orphans.append(
            Orphan("approval", str(a.id), workflow_id, a.project_id or 0, a.reviewed_by or "", "")
        )
    return orphans
