"""RecoveryWorkflow: start the workflows of committed records that have none (see
engine.recovery). Started by a Temporal schedule; each start uses the record's derived id, so a
workflow that is already running is left alone and nothing ever runs twice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

with workflow.unsafe.imports_passed_through():
    from activities.engine import EngineActivities, OrphanQuery
    from engine.recovery import Orphan
    from engine.search import attributes
    from workflows.approval import ApprovalInput, ApprovalWorkflow
    from workflows.funds import FundLockInput, FundLockWorkflow
    from workflows.mining import MiningSubmissionWorkflow, submission_input
    from workflows.transfers import TransferInput, TransferWorkflow

RECOVERY_SCHEDULE_ID = "mccgw-recover-orphans"


@dataclass
class RecoveryInput:
    stale_after_seconds: float = 30.0


@dataclass
class RecoveryResult:
    found: int
    started: int


@workflow.defn
class RecoveryWorkflow:
    @workflow.run
    async def run(self, data: RecoveryInput) -> RecoveryResult:
        orphans = await workflow.execute_activity_method(
            EngineActivities.find_orphans,
            OrphanQuery(stale_after_seconds=data.stale_after_seconds),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=3),
        )
        started = 0
        for orphan in orphans:
            if await self._start(orphan):
                started += 1
        if orphans:
            workflow.logger.warning("recovery found %d orphans, started %d", len(orphans), started)
        return RecoveryResult(found=len(orphans), started=started)

    async def _start(self, o: Orphan) -> bool:
        queue = workflow.info().task_queue
        # ABANDON: the record's workflow outlives this sweep.
        abandon = workflow.ParentClosePolicy.ABANDON
        try:
            if o.kind == "transfer":
                await workflow.start_child_workflow(
                    TransferWorkflow.run,
                    TransferInput(transfer_id=o.record_id),
                    id=o.workflow_id,
                    task_queue=queue,
                    parent_close_policy=abandon,
                    search_attributes=attributes(
                        project_id=o.project_id, user_uid=o.user_uid, operation="transfer",
                        status="pending", currency=o.currency,
                    ),
                )  # fmt: skip
            elif o.kind == "mining":
                await workflow.start_child_workflow(
                    MiningSubmissionWorkflow.run,
                    submission_input(o.workflow_id, o.record_ids),
                    id=o.workflow_id,
                    task_queue=queue,
                    parent_close_policy=abandon,
                )
            elif o.kind == "approval":  # its project exists: the input needs no scopes
                await workflow.start_child_workflow(
                    ApprovalWorkflow.run,
                    ApprovalInput(o.record_id, o.user_uid),
                    id=o.workflow_id,
                    task_queue=queue,
                    parent_close_policy=abandon,
                )
            else:
                await workflow.start_child_workflow(
                    FundLockWorkflow.run,
                    FundLockInput(lock_id=o.record_id, expires_at=o.expires_at or ""),
                    id=o.workflow_id,
                    task_queue=queue,
                    parent_close_policy=abandon,
                    search_attributes=attributes(
                        project_id=o.project_id, user_uid=o.user_uid, operation="fund_lock",
                        status="locked", currency=o.currency,
                    ),
                )  # fmt: skip
        except WorkflowAlreadyStartedError:
            return False
        return True
