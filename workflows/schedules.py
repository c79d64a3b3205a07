"""The Temporal schedules, created idempotently when a worker starts: custody reconciliation
(every 5 minutes), the recovery sweep for unattended records (every 30 s), housekeeping
(hourly), the tech tree's daily job (00:30 UTC), the deposit watcher (every few seconds) and
the price oracle (00, 04, ..., 20 UTC)."""

from __future__ import annotations

import dataclasses
import logging
from datetime import timedelta
from typing import Any

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
    ScheduleUpdate,
    ScheduleUpdateInput,
)

from core.workflow_ids import (
    DAILY_KPI_WORKFLOW_ID,
    DEPOSIT_SCAN_WORKFLOW_ID,
    HOUSEKEEPING_WORKFLOW_ID,
    ORACLE_SAMPLE_WORKFLOW_ID,
    ORACLE_WORKFLOW_ID,
    RECONCILE_WORKFLOW_ID,
    RECOVERY_WORKFLOW_ID,
)
from workflows.housekeeping import (
    HOUSEKEEPING_SCHEDULE_ID,
    HousekeepingInput,
    HousekeepingWorkflow,
)
from workflows.organizations import (
    DAILY_KPI_CRON,
    DAILY_KPI_SCHEDULE_ID,
    DailyKpiInput,
    DailyKpiWorkflow,
)
from workflows.reconcile import RECONCILE_SCHEDULE_ID, ReconcileInput, ReconcileWorkflow
from workflows.recovery import RECOVERY_SCHEDULE_ID, RecoveryInput, RecoveryWorkflow
from workflows.tokens import (
    DEPOSIT_SCHEDULE_ID,
    ORACLE_SAMPLE_SCHEDULE_ID,
    ORACLE_SCHEDULE_ID,
    DepositScanInput,
    DepositScanWorkflow,
    OracleInput,
    OracleWorkflow,
)

log = logging.getLogger("mccgw.engine")

# One run at a time: a run still going when the next is due is not doubled.
_SKIP = SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP)
# The deposit watcher's: its first run starts when the schedule is created (a new deployment,
# a fresh `mccgw dev`, does not wait up to an interval for the first firing), and a firing
# that finds a run going starts right after it, not an interval later: the triggered run
# overlaps the first firing whatever their phase.
_FOLLOW_ON = SchedulePolicy(overlap=ScheduleOverlapPolicy.BUFFER_ONE)


async def _create(
    client: Client, schedule_id: str, schedule: Schedule, *, start_now: bool = False
) -> None:
    """Create the schedule unless it exists (any number of workers may call this), its first
    action at once when ``start_now``; one that exists takes this worker's interval and
    overlap policy if they differ."""
    try:
        await client.create_schedule(schedule_id, schedule, trigger_immediately=start_now)
    except ScheduleAlreadyRunningError:
        await _follow_interval(client, schedule_id, schedule)
        return
    except Exception as exc:  # the worker runs without it; the next start retries
        log.warning("could not create the schedule %s: %r", schedule_id, exc)
        return
    log.info("schedule created", extra={"schedule": schedule_id})


def _intervals(schedule: Schedule) -> list[timedelta]:
    return [spec.every for spec in schedule.spec.intervals]


def _shape(schedule: Schedule) -> tuple[list[timedelta], ScheduleOverlapPolicy]:
    return _intervals(schedule), schedule.policy.overlap


async def _follow_interval(client: Client, schedule_id: str, schedule: Schedule) -> None:
    """An interval that comes from the settings (``DEPOSIT_SCAN_SECONDS``), or a new default
    (an interval, an overlap policy), reaches a deployment whose schedule an earlier start
    created: the schedule is replaced by this worker's, keeping its state (an operator's pause
    and its note)."""
    if not _intervals(schedule):
        return
    wanted = _shape(schedule)
    handle = client.get_schedule_handle(schedule_id)

    def replace(current: ScheduleUpdateInput) -> ScheduleUpdate | None:
        if _shape(current.description.schedule) == wanted:
            return None
        return ScheduleUpdate(
            schedule=dataclasses.replace(schedule, state=current.description.schedule.state)
        )

    try:
        before = _shape((await handle.describe()).schedule)
        if before == wanted:
            return
        await handle.update(replace)
    except Exception as exc:  # the worker runs on the old interval; the next start retries
        log.warning("could not update the schedule %s: %r", schedule_id, exc)
        return
    log.info(
        "schedule interval changed",
        extra={"schedule": schedule_id, "from": [str(b) for b in before[0]],
               "to": [str(w) for w in wanted[0]], "overlap": wanted[1].name},
    )  # fmt: skip


def _start(run: Any, arg: Any, workflow_id: str, task_queue: str) -> ScheduleActionStartWorkflow:
    return ScheduleActionStartWorkflow(run, arg, id=workflow_id, task_queue=task_queue)


def _every(
    run: Any,
    arg: Any,
    workflow_id: str,
    task_queue: str,
    every: timedelta,
    policy: SchedulePolicy = _SKIP,
) -> Schedule:
    return Schedule(
        action=_start(run, arg, workflow_id, task_queue),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        policy=policy,
    )


# The schedules that start a workflow at a fixed interval: (schedule id, workflow, its input,
# its workflow id, how often).
_INTERVALS: tuple[tuple[str, Any, Any, str, timedelta], ...] = (
    (RECONCILE_SCHEDULE_ID, ReconcileWorkflow.run, ReconcileInput(note="scheduled"),
     RECONCILE_WORKFLOW_ID, timedelta(minutes=5)),
    (RECOVERY_SCHEDULE_ID, RecoveryWorkflow.run, RecoveryInput(),
     RECOVERY_WORKFLOW_ID, timedelta(seconds=30)),
    (HOUSEKEEPING_SCHEDULE_ID, HousekeepingWorkflow.run, HousekeepingInput(),
     HOUSEKEEPING_WORKFLOW_ID, timedelta(hours=1)),
)  # fmt: skip


async def ensure_schedules(
    client: Client, task_queue: str, deposit_every: timedelta = timedelta(seconds=10)
) -> None:
    """Every schedule of the worker (any number of workers may call this at start)."""
    for schedule_id, run, arg, workflow_id, every in _INTERVALS:
        await _create(client, schedule_id, _every(run, arg, workflow_id, task_queue, every))
    await ensure_daily_kpi_schedule(client, task_queue)
    await ensure_token_schedules(client, task_queue, deposit_every)


async def ensure_daily_kpi_schedule(client: Client, task_queue: str) -> None:
    """The tech tree's daily job at 00:30 UTC (see workflows.organizations). A run still
    catching up is not doubled; a missed 00:30 (worker or server down) is caught up by the next
    run, which computes every undone day."""
    schedule = Schedule(
        action=_start(DailyKpiWorkflow.run, DailyKpiInput(), DAILY_KPI_WORKFLOW_ID, task_queue),
        spec=ScheduleSpec(cron_expressions=[DAILY_KPI_CRON], time_zone_name="UTC"),
        policy=_SKIP,
    )
    await _create(client, DAILY_KPI_SCHEDULE_ID, schedule)


# The deposit watcher's run ends this long before the next is due at most (10 % of a shorter
# interval): room for its start and end, so the next firing seldom finds it running (and one
# that does starts right after it: overlap BUFFER_ONE).
DEPOSIT_FOLLOW_MARGIN = 3.0


def deposit_follow_seconds(every: timedelta) -> float:
    """How long each deposit watcher run follows the chain: its interval less the margin (the
    same 3 s of a 30 s interval whatever the interval, so a longer one starts fewer runs and
    leaves no more unwatched)."""
    seconds = every.total_seconds()
    return seconds - min(seconds * 0.1, DEPOSIT_FOLLOW_MARGIN)


async def ensure_deposit_schedule(
    client: Client,
    task_queue: str,
    every: timedelta,
    *,
    schedule_id: str = DEPOSIT_SCHEDULE_ID,
    workflow_id: str = DEPOSIT_SCAN_WORKFLOW_ID,
) -> None:
    """The deposit watcher: a run every ``every``, each following the chain for most of its
    interval (passes back to back, not one), the first started with the schedule."""
    follow = deposit_follow_seconds(every)
    run, arg = DepositScanWorkflow.run, DepositScanInput(note="scheduled", follow_seconds=follow)
    deposits = _every(run, arg, workflow_id, task_queue, every, policy=_FOLLOW_ON)
    await _create(client, schedule_id, deposits, start_now=True)


async def ensure_token_schedules(
    client: Client,
    task_queue: str,
    deposit_every: timedelta = timedelta(seconds=10),
    sample_every: timedelta = timedelta(minutes=1),
) -> None:
    """The deposit watcher every ``deposit_every``; the oracle at 00, 04, ..., 20 UTC and its
    market sampler every ``sample_every``. A close missed while nothing ran is caught up by the
    next run (tokens.oracle.due_closes), once."""
    await ensure_deposit_schedule(client, task_queue, deposit_every)
    every_4_hours = ScheduleCalendarSpec(
        hour=[ScheduleRange(0, 20, 4)], minute=[ScheduleRange(0)], second=[ScheduleRange(0)]
    )
    oracle = Schedule(
        action=_start(
            OracleWorkflow.run, OracleInput(note="scheduled"), ORACLE_WORKFLOW_ID, task_queue
        ),
        spec=ScheduleSpec(calendars=[every_4_hours], time_zone_name="UTC"),
        # One run at a time; a run missed while the service was down starts once when it is
        # back (within a day), and that run records every missed close.
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP, catchup_window=timedelta(days=1)),
    )
    await _create(client, ORACLE_SCHEDULE_ID, oracle)
    # The market samples each close takes the median of (tokens.oracle), once a minute.
    sample = _every(
        OracleWorkflow.run, OracleInput(note="sample", sample=True), ORACLE_SAMPLE_WORKFLOW_ID,
        task_queue, sample_every,
    )  # fmt: skip
    await _create(client, ORACLE_SAMPLE_SCHEDULE_ID, sample)
