"""The Temporal schedules, created idempotently when a worker starts: custody reconciliation
(every 5 minutes), the recovery sweep for unattended records (every 30 s) and housekeeping
(hourly)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
)

from workflows.housekeeping import (
    HOUSEKEEPING_SCHEDULE_ID,
    HousekeepingInput,
    HousekeepingWorkflow,
)
from workflows.organizations import (
    DAILY_KPI_CRON,
    DAILY_KPI_SCHEDULE_ID,
    DAILY_KPI_WORKFLOW_ID,
    DailyKpiInput,
    DailyKpiWorkflow,
)
from workflows.reconcile import RECONCILE_SCHEDULE_ID, ReconcileInput, ReconcileWorkflow
from workflows.recovery import RECOVERY_SCHEDULE_ID, RecoveryInput, RecoveryWorkflow

log = logging.getLogger("mccgw.engine")


async def _ensure(
    client: Client, schedule_id: str, run: Any, arg: Any, workflow_id: str, task_queue: str,
    every: timedelta,
) -> None:  # fmt: skip
    """Create the schedule unless it exists (any number of workers may call this)."""
    try:
        await client.create_schedule(
            schedule_id,
            Schedule(
                action=ScheduleActionStartWorkflow(run, arg, id=workflow_id, task_queue=task_queue),
                spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
                policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
            ),
        )
    except ScheduleAlreadyRunningError:
        return
    except Exception as exc:  # the worker runs without it; the next start retries
        log.warning("could not create the schedule %s: %r", schedule_id, exc)
        return
    log.info("schedule created", extra={"schedule": schedule_id, "every_s": every.total_seconds()})


async def ensure_reconcile_schedule(
    client: Client, task_queue: str, every: timedelta = timedelta(minutes=5)
) -> None:
    await _ensure(
        client, RECONCILE_SCHEDULE_ID, ReconcileWorkflow.run, ReconcileInput(note="scheduled"),
        "mccgw-reconcile", task_queue, every,
    )  # fmt: skip


async def ensure_recovery_schedule(
    client: Client, task_queue: str, every: timedelta = timedelta(seconds=30)
) -> None:
    await _ensure(
        client, RECOVERY_SCHEDULE_ID, RecoveryWorkflow.run, RecoveryInput(),
        "mccgw-recover", task_queue, every,
    )  # fmt: skip


async def ensure_housekeeping_schedule(
    client: Client, task_queue: str, every: timedelta = timedelta(hours=1)
) -> None:
    await _ensure(
        client, HOUSEKEEPING_SCHEDULE_ID, HousekeepingWorkflow.run, HousekeepingInput(),
        "mccgw-housekeeping", task_queue, every,
    )  # fmt: skip


async def ensure_daily_kpi_schedule(client: Client, task_queue: str) -> None:
    """The tech tree's daily job at 00:30 UTC (see workflows.organizations)."""
    try:
        await client.create_schedule(
            DAILY_KPI_SCHEDULE_ID,
            Schedule(
                action=ScheduleActionStartWorkflow(
                    DailyKpiWorkflow.run,
                    DailyKpiInput(),
                    id=DAILY_KPI_WORKFLOW_ID,
                    task_queue=task_queue,
                ),
                spec=ScheduleSpec(cron_expressions=[DAILY_KPI_CRON], time_zone_name="UTC"),
                # A run still catching up is not doubled; a missed 00:30 (worker or server
                # down) is caught up by the next run, which computes every undone day.
                policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
            ),
        )
    except ScheduleAlreadyRunningError:
        return
    except Exception as exc:  # the worker runs without it; the next start retries
        log.warning("could not create the schedule %s: %r", DAILY_KPI_SCHEDULE_ID, exc)
        return
    log.info("schedule created", extra={"schedule": DAILY_KPI_SCHEDULE_ID, "cron": DAILY_KPI_CRON})
