"""HousekeepingWorkflow: purge expired idempotency records, batch by batch, on a schedule
(hourly, created by the worker). Each batch is one activity: a long backlog is worked off
without one huge transaction, and progress shows in the workflow history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.housekeeping import HousekeepingActivities, PurgeRequest
    from workflows.steps import Step

HOUSEKEEPING_SCHEDULE_ID = "mccgw-housekeeping"


@dataclass
class HousekeepingInput:
    batch: int = 5000
    max_batches: int = 200


@dataclass
class HousekeepingResult:
    idempotency_records_deleted: int


@workflow.defn
class HousekeepingWorkflow:
    @workflow.run
    async def run(self, data: HousekeepingInput) -> HousekeepingResult:
        total = 0
        purge = Step(timedelta(seconds=60), RetryPolicy(maximum_attempts=5))
        for _ in range(data.max_batches):
            done = await purge.run(
                HousekeepingActivities.purge_idempotency, PurgeRequest(batch=data.batch)
            )
            total += done.deleted
            if not done.more:
                break
        return HousekeepingResult(idempotency_records_deleted=total)
