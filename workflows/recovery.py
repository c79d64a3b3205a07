"""RecoveryWorkflow: start the workflows of committed records that have none (see
engine.recovery). Started by a Temporal schedule; each start uses the record's derived id, so a
workflow that is already running is left alone and nothing ever runs twice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

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
    from workflows.steps import Step
    from workflows.transfers import TransferInput, TransferWorkflow
    from workflows.whitelist import WhitelistChangeInput, WhitelistChangeWorkflow
    from workflows.withdrawals import WithdrawalInput, WithdrawalWorkflow

RECOVERY_SCHEDULE_ID = "mccgw-recover-orphans"


@dataclass
class RecoveryInput:
    stale_after_seconds: float = 30.0


@dataclass
class RecoveryResult:
    found: int
    started: int


# Unsandboxed, as the token workflows (workflows.tokens): a run every 30 s, each a new instance.
@workflow.defn(sandboxed=False)
class RecoveryWorkflow:
    @workflow.run
    async def run(self, data: RecoveryInput) -> RecoveryResult:
        find = Step(timedelta(seconds=30), RetryPolicy(maximum_attempts=3))
        orphans = await find.run(
            EngineActivities.find_orphans,
            OrphanQuery(stale_after_seconds=data.stale_after_seconds),
        )
        started = 0
        for orphan in orphans:
            if await self._start(orphan):
                started += 1
        if orphans:
            workflow.logger.warning("recovery found %d orphans, started %d", len(orphans), started)
        return RecoveryResult(found=len(orphans), started=started)

    async def _start(self, o: Orphan) -> bool:
        run, arg, shown = _child(o)
        # Transfers and fund locks carry the search attributes operators filter by.
        found = None
        if shown is not None:
            operation, status = shown
            found = attributes(
                project_id=o.project_id,
                user_uid=o.user_uid,
                operation=operation,
                status=status,
                currency=o.currency,
            )
        try:
            await workflow.start_child_workflow(
                run,
                arg,
                id=o.workflow_id,
                task_queue=workflow.info().task_queue,
                # ABANDON: the record's workflow outlives this sweep.
                parent_close_policy=workflow.ParentClosePolicy.ABANDON,
                search_attributes=found,
            )
        except WorkflowAlreadyStartedError:
            return False
        return True


def _child(o: Orphan) -> tuple[Any, Any, tuple[str, str] | None]:
    """The orphan's workflow, its input and the (operation, status) it is shown with."""
    if o.kind == "transfer":
        return TransferWorkflow.run, TransferInput(transfer_id=o.record_id), ("transfer", "pending")
    if o.kind == "mining":
        return MiningSubmissionWorkflow.run, submission_input(o.workflow_id, o.record_ids), None
    if o.kind == "approval":  # its project exists: the input needs no scopes
        return ApprovalWorkflow.run, ApprovalInput(o.record_id, o.user_uid), None
    if o.kind == "withdrawal":
        arg = WithdrawalInput(withdrawal_id=o.record_id)
        return WithdrawalWorkflow.run, arg, ("withdrawal", "pending")
    if o.kind == "whitelist":
        change = WhitelistChangeInput(o.project_id, o.action, o.record_id)
        return WhitelistChangeWorkflow.run, change, None
    lock = FundLockInput(lock_id=o.record_id, expires_at=o.expires_at or "")
    return FundLockWorkflow.run, lock, ("fund_lock", "locked")
