"""The bare one-activity workflow: the yardstick every benchmark reports beside its figures,
and a cheap end-to-end probe that the worker is polling."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.system import EchoInput, echo
    from workflows.steps import Step

_ECHO = Step(timedelta(seconds=10), RetryPolicy(maximum_attempts=3))


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
        echoed = await _ECHO.run(echo, EchoInput(message=data.message))
        return PingResult(echoed=echoed)
