"""Token workflows: the deposit watcher (a pass every few seconds) and the price oracle (a close
every 4 hours at 00, 04, ..., 20 UTC, from market samples taken once a minute), each started by
a Temporal schedule that the worker creates idempotently at start
(``workflows.schedules.ensure_token_schedules``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.tokens import (
        DepositScanReport,
        DepositScanRequest,
        OracleCloseRequest,
        OracleSampleRequest,
        OracleWriteRequest,
        TokenActivities,
    )
    from workflows.steps import Step

DEPOSIT_SCHEDULE_ID = "mccgw-deposit-watch"
ORACLE_SCHEDULE_ID = "mccgw-oracle-close"
ORACLE_SAMPLE_SCHEDULE_ID = "mccgw-oracle-sample"

# The pass heartbeats: a worker killed during it held the schedule's next runs (overlap: skip)
# for the whole 2 min timeout, crediting no deposit meanwhile (found by the chaos suite).
_SCAN = Step(
    timedelta(minutes=2),
    RetryPolicy(maximum_attempts=3, maximum_interval=timedelta(seconds=10)),
    heartbeat=timedelta(seconds=10),
)
_RECORD_CLOSES = Step(
    timedelta(minutes=1), RetryPolicy(maximum_attempts=10, maximum_interval=timedelta(seconds=30))
)
# A sample is worth its minute only: a few quick tries, then the next minute's run.
_SAMPLE = Step(
    timedelta(seconds=30), RetryPolicy(maximum_attempts=3, maximum_interval=timedelta(seconds=5))
)
_WRITE_CLOSE = Step(
    timedelta(minutes=3), RetryPolicy(maximum_attempts=20, maximum_interval=timedelta(seconds=60))
)


@dataclass
class DepositScanInput:
    note: str = ""
    follow_seconds: float = 0.0  # see activities.tokens.DepositScanRequest


# The three workflows a schedule starts anew again and again (the watcher every 90 s, the
# sampler every 60 s, recovery every 30 s) run unsandboxed, as TransferWorkflow: their modules
# import only temporalio and pass-through modules and do no I/O, clock or randomness of their
# own; a sandboxed instance per run was a fifth of an idle worker's workflow CPU (issue 43).
@workflow.defn(sandboxed=False)
class DepositScanWorkflow:
    @workflow.run
    async def run(self, data: DepositScanInput) -> DepositScanReport:
        request = DepositScanRequest(note=data.note, follow_seconds=data.follow_seconds)
        return await _SCAN.run(TokenActivities.scan_deposits, request)


@dataclass
class OracleInput:
    note: str = ""
    # True: take one market sample (the schedule mccgw-oracle-sample, once a minute) instead
    # of the closes. One workflow type for the oracle; an input without it closes.
    sample: bool = False


@dataclass
class OracleReport:
    recorded: list[str] = field(default_factory=list)
    written: dict[str, str] = field(default_factory=dict)  # close key -> signature


@workflow.defn(sandboxed=False)  # as DepositScanWorkflow
class OracleWorkflow:
    """Record the due closes, then write each unwritten one on chain in order."""

    @workflow.run
    async def run(self, data: OracleInput) -> OracleReport:
        if data.sample:
            await _SAMPLE.run(
                TokenActivities.oracle_sample, OracleSampleRequest(now=workflow.now().isoformat())
            )
            return OracleReport()
        closes = await _RECORD_CLOSES.run(
            TokenActivities.oracle_record_closes,
            OracleCloseRequest(now=workflow.now().isoformat()),
        )
        report = OracleReport(recorded=list(closes.recorded))
        for key in closes.to_write:
            result = await _WRITE_CLOSE.run(
                TokenActivities.oracle_write_close, OracleWriteRequest(close_key=key)
            )
            report.written[key] = result.signature
        return report
