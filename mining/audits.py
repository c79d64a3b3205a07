"""The audit row of a mining submission (or of a batch) reaches its final state (issue 34):
the call was audited ``pending`` when accepted; once every submission it accepted is final
(confirmed, failed or rejected) the row becomes ``success`` (at least one confirmed) or
``failed``. Flush-only, called in the transaction that settles the submissions."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.access import AuditLog
from db.models.mining import MiningSubmission

FINAL = ("confirmed", "failed", "rejected")
OPERATIONS = ("mining.submit", "mining.batch_submit")


async def finish_audits(session: AsyncSession, rows: Iterable[MiningSubmission]) -> None:
    """For each workflow (one call's submissions) among ``rows`` whose submissions are all
    final now, mark the call's pending audit row with the outcome."""
    workflows = {row.workflow_id: row for row in rows}
    if not workflows:
        return
    await session.flush()
    counts = await session.execute(
        select(
            MiningSubmission.workflow_id,
            func.count().filter(MiningSubmission.status.not_in(FINAL)),
            func.count().filter(MiningSubmission.status == "confirmed"),
        )
        .where(MiningSubmission.workflow_id.in_(workflows))
        .group_by(MiningSubmission.workflow_id)
    )
    for workflow_id, open_count, confirmed in counts.all():
        if open_count:
            continue
        row = workflows[workflow_id]
        await session.execute(
            update(AuditLog)
            .where(
                AuditLog.project_id == row.project_id,
                AuditLog.status == "pending",
                AuditLog.operation.in_(OPERATIONS),
                or_(
                    AuditLog.response_body.contains({"data": {"id": row.id}}),
                    AuditLog.response_body.contains(
                        {"data": [{"attributes": {"activity": {"id": row.id}}}]}
                    ),
                ),
            )
            .values(status="success" if confirmed else "failed")
        )
