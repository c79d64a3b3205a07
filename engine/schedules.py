"""The reconciliation schedule, created idempotently when a worker starts."""

from __future__ import annotations

import logging
from datetime import timedelta

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

from workflows.reconcile import RECONCILE_SCHEDULE_ID, ReconcileInput, ReconcileWorkflow

log = logging.getLogger("mccgw.engine")


async def ensure_reconcile_schedule(
    client: Client, task_queue: str, every: timedelta = timedelta(minutes=5)
) -> None:
    """Create the schedule unless it exists (any number of workers may call this)."""
    try:
        await client.create_schedule(
            RECONCILE_SCHEDULE_ID,
            Schedule(
                action=ScheduleActionStartWorkflow(
                    ReconcileWorkflow.run,
                    ReconcileInput(note="scheduled"),
                    id="mccgw-reconcile",
                    task_queue=task_queue,
                ),
                spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
                policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
            ),
        )
    except ScheduleAlreadyRunningError:
        return
    except Exception as exc:  # the worker runs without it; the next start retries
        log.warning("could not create the reconciliation schedule: %r", exc)
        return
    log.info("reconciliation schedule created", extra={"every_s": every.total_seconds()})
