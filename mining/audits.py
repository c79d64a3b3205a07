"""The audit row of a mining submission (or of a batch) reaches its final state (issue 34):
the call was audited ``pending`` when accepted; once every submission it accepted is final
(confirmed, failed or rejected) the row becomes ``success`` (at least one confirmed) or
``failed``. Flush-only, called in the transaction that settles the submissions."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.mining import MiningSubmission

FINAL = ("confirmed", "failed", "rejected")
OPERATIONS = ("mining.submit", "mining.batch_submit")

# One statement (issue 43: was a count per workflow, then an UPDATE per finished one): the
# workflows among the rows whose submissions are all final, and each one's pending audit row
# (found by a submission's id in its answer: a submit's ``data.id``, a batch's items) marked.
_FINISH = text(
    f"""
WITH finished AS (
    SELECT m.workflow_id, count(*) FILTER (WHERE m.status = 'confirmed') AS confirmed
    FROM mining_activities m
    WHERE m.workflow_id = ANY(CAST(:workflows AS text[]))
    GROUP BY m.workflow_id
    HAVING count(*) FILTER (WHERE m.status NOT IN {FINAL!r}) = 0
)
UPDATE audit_log a
SET status = CASE WHEN f.confirmed > 0 THEN 'success' ELSE 'failed' END, updated_at = now()
FROM finished f JOIN unnest(
    CAST(:workflows AS text[]), CAST(:projects AS bigint[]), CAST(:ids AS text[])
) AS w(workflow_id, project_id, submission_id) ON w.workflow_id = f.workflow_id
WHERE a.project_id = w.project_id AND a.status = 'pending' AND a.operation IN {OPERATIONS!r}
  AND (a.response_body @> jsonb_build_object('data', jsonb_build_object('id', w.submission_id))
       OR a.response_body @> jsonb_build_object('data', jsonb_build_array(jsonb_build_object(
           'attributes', jsonb_build_object('activity',
                                            jsonb_build_object('id', w.submission_id))))))
"""
)


async def finish_audits(session: AsyncSession, rows: Iterable[MiningSubmission]) -> None:
    """For each workflow (one call's submissions) among ``rows`` whose submissions are all
    final now, mark the call's pending audit row with the outcome."""
    workflows = {row.workflow_id: row for row in rows}
    if not workflows:
        return
    await session.flush()
    await session.execute(
        _FINISH,
        {
            "workflows": list(workflows),
            "projects": [r.project_id for r in workflows.values()],
            "ids": [r.id for r in workflows.values()],
        },
    )
