"""The bare one-activity workflow: the yardstick every benchmark reports beside its figures,
and a cheap end-to-end probe that the worker is polling."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.system import EchoInput, SystemActivities


@dataclass
class PingInput:
    message: str


@dataclass
class PingResult:
    echoed: str


@workflow.defn
class PingWorkflow:
    @workflow.run
    async def run(self, data: PingInput) -> PingResult:
        echoed = await workflow.execute_activity_method(
            SystemActivities.echo,
            EchoInput(message=data.message),
            start_to_close_timeout=timedelta(seconds=10),
            retry_policy=RetryPolicy(maximum_attempts=3),
        )
        return PingResult(echoed=echoed)
