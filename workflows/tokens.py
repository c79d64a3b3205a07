"""Token workflows: the deposit watcher (a pass every few seconds) and the price oracle (a close
every 4 hours at 00, 04, ..., 20 UTC), each started by a Temporal schedule that the worker
creates idempotently at start (``ensure_token_schedules``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from temporalio.client import (
        Client,
        Schedule,
        ScheduleActionStartWorkflow,
        ScheduleAlreadyRunningError,
        ScheduleCalendarSpec,
        ScheduleIntervalSpec,
        ScheduleOverlapPolicy,
        SchedulePolicy,
        ScheduleRange,
        ScheduleSpec,
    )

    from activities.tokens import (
        DepositScanReport,
        DepositScanRequest,
        OracleCloseRequest,
        OracleWriteRequest,
        TokenActivities,
    )

DEPOSIT_SCHEDULE_ID = "mccgw-deposit-watch"
ORACLE_SCHEDULE_ID = "mccgw-oracle-close"

log = logging.getLogger("mccgw.tokens")


@dataclass
class DepositScanInput:
    note: str = ""


@workflow.defn
class DepositScanWorkflow:
    @workflow.run
    async def run(self, data: DepositScanInput) -> DepositScanReport:
        return await workflow.execute_activity_method(
            TokenActivities.scan_deposits,
            DepositScanRequest(note=data.note),
            start_to_close_timeout=timedelta(minutes=2),
            retry_policy=RetryPolicy(maximum_attempts=3, maximum_interval=timedelta(seconds=10)),
        )


@dataclass
class OracleInput:
    note: str = ""


@dataclass
class OracleReport:
    recorded: list[str] = field(default_factory=list)
    written: dict[str, str] = field(default_factory=dict)  # close key -> signature


@workflow.defn
class OracleWorkflow:
    """Record the due closes, then write each unwritten one on chain in order."""

    @workflow.run
    async def run(self, data: OracleInput) -> OracleReport:
        closes = await workflow.execute_activity_method(
            TokenActivities.oracle_record_closes,
            OracleCloseRequest(now=workflow.now().isoformat()),
            start_to_close_timeout=timedelta(minutes=1),
            retry_policy=RetryPolicy(maximum_attempts=10, maximum_interval=timedelta(seconds=30)),
        )
        report = OracleReport(recorded=list(closes.recorded))
        for key in closes.to_write:
            result = await workflow.execute_activity_method(
                TokenActivities.oracle_write_close,
                OracleWriteRequest(close_key=key),
                start_to_close_timeout=timedelta(minutes=3),
                retry_policy=RetryPolicy(
                    maximum_attempts=20, maximum_interval=timedelta(seconds=60)
                ),
            )
            report.written[key] = result.signature
        return report


async def _create(client: Client, schedule_id: str, schedule: Schedule) -> None:
    try:
        await client.create_schedule(schedule_id, schedule)
    except ScheduleAlreadyRunningError:
        return
    except Exception as exc:  # the worker runs without it; the next start retries
        log.warning("could not create the schedule %s: %r", schedule_id, exc)


async def ensure_token_schedules(
    client: Client, task_queue: str, deposit_every: timedelta = timedelta(seconds=10)
) -> None:
    """The deposit watcher every ``deposit_every``; the oracle at 00, 04, ..., 20 UTC. A close
    missed while nothing ran is caught up by the next run (tokens.oracle.due_closes), once."""
    await _create(
        client,
        DEPOSIT_SCHEDULE_ID,
        Schedule(
            action=ScheduleActionStartWorkflow(
                DepositScanWorkflow.run,
                DepositScanInput(note="scheduled"),
                id="mccgw-deposit-scan",
                task_queue=task_queue,
            ),
            spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=deposit_every)]),
            policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        ),
    )
    await _create(
        client,
        ORACLE_SCHEDULE_ID,
        Schedule(
            action=ScheduleActionStartWorkflow(
                OracleWorkflow.run,
                OracleInput(note="scheduled"),
                id="mccgw-oracle",
                task_queue=task_queue,
            ),
            spec=ScheduleSpec(
                calendars=[
                    ScheduleCalendarSpec(
                        hour=[ScheduleRange(0, 20, 4)],
                        minute=[ScheduleRange(0)],
                        second=[ScheduleRange(0)],
                    )
                ],
                time_zone_name="UTC",
            ),
            # One run at a time; a run missed while the service was down starts once when it
            # is back (within a day), and that run records every missed close.
            policy=SchedulePolicy(
                overlap=ScheduleOverlapPolicy.SKIP, catchup_window=timedelta(days=1)
            ),
        ),
    )
