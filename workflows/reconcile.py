"""ReconcileWorkflow: one reconciliation pass (custody on chain vs ledger); started by a
Temporal schedule created idempotently at worker start (``workflows.schedules``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.engine import EngineActivities, ReconcileReport, ReconcileRequest
    from engine.search import STATUS
    from workflows.steps import Step

RECONCILE_SCHEDULE_ID = "mccgw-reconcile-custody"
_RECONCILE = Step(
    timedelta(minutes=5), RetryPolicy(maximum_attempts=5, maximum_interval=timedelta(seconds=30))
)


@dataclass
class ReconcileInput:
    note: str = ""


# Unsandboxed, as the other scheduled workflows (workflows.tokens, workflows.recovery): a run every
# 5 minutes, each a new instance, and the sandbox rebuilt the module's restricted copy per run.
@workflow.defn(sandboxed=False)
class ReconcileWorkflow:
    @workflow.run
    async def run(self, data: ReconcileInput) -> ReconcileReport:
        report = await _RECONCILE.run(
            EngineActivities.reconcile, ReconcileRequest(run_id=workflow.info().run_id)
        )
        workflow.upsert_search_attributes([STATUS.value_set("drift" if report.drifts else "clean")])
        return report
