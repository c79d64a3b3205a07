"""The webhook pump: one long-lived workflow per task queue that keeps the delivery activity
running (it heartbeats; a crashed worker's run is retried elsewhere) and continues as new so
its history stays short. Started idempotently by ``workflows.pump.ensure_pump``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.webhooks import PumpInput, WebhookActivities
    from workflows.steps import Step, backoff

RUN_SECONDS = 300.0
RUNS_PER_HISTORY = 50
# One run of the pump; retried without a cap: delivery must resume after any crash (the pump is
# idempotent). It heartbeats: a killed worker's run moves to another after 30 s of silence.
_PUMP = Step(
    timedelta(seconds=RUN_SECONDS + 120),
    backoff(timedelta(seconds=1), timedelta(seconds=30), 0),
    heartbeat=timedelta(seconds=30),
)


@dataclass
class PumpWorkflowInput:
    runs: int = 0


@workflow.defn
class WebhookPumpWorkflow:
    @workflow.run
    async def run(self, data: PumpWorkflowInput) -> None:
        runs = data.runs
        while True:
            await _PUMP.run(WebhookActivities.pump, PumpInput(seconds=RUN_SECONDS))
            runs += 1
            if runs % RUNS_PER_HISTORY == 0 or workflow.info().is_continue_as_new_suggested():
                workflow.continue_as_new(PumpWorkflowInput(runs=runs))
