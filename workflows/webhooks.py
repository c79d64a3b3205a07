"""The webhook pump: one long-lived workflow per task queue that keeps the delivery activity
running (it heartbeats; a crashed worker's run is retried elsewhere) and continues as new so
its history stays short. Started idempotently by ``workflows.pump.ensure_pump``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.webhooks import PumpInput, WebhookActivities

RUN_SECONDS = 300.0
RUNS_PER_HISTORY = 50


@dataclass
class PumpWorkflowInput:
    runs: int = 0


@workflow.defn
class WebhookPumpWorkflow:
    @workflow.run
    async def run(self, data: PumpWorkflowInput) -> None:
        runs = data.runs
        while True:
            await workflow.execute_activity_method(
                WebhookActivities.pump,
                PumpInput(seconds=RUN_SECONDS),
                start_to_close_timeout=timedelta(seconds=RUN_SECONDS + 120),
                heartbeat_timeout=timedelta(seconds=30),
                # Unlimited: delivery must resume after any crash; the pump is idempotent.
                retry_policy=RetryPolicy(
                    initial_interval=timedelta(seconds=1),
                    maximum_interval=timedelta(seconds=30),
                    maximum_attempts=0,
                ),
            )
            runs += 1
            if runs % RUNS_PER_HISTORY == 0 or workflow.info().is_continue_as_new_suggested():
                workflow.continue_as_new(PumpWorkflowInput(runs=runs))
