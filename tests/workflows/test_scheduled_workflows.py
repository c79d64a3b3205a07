"""The scheduled workflows (daily KPI, oracle, deposit watch, reconciliation, housekeeping)
and the webhook pump: their orchestration, activities stood in for."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest
from temporalio import activity
from temporalio.client import (
    ScheduleActionExecution,
    ScheduleActionExecutionStartWorkflow,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleUpdate,
    ScheduleUpdateInput,
    WorkflowExecutionStatus,
    WorkflowFailureError,
)
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from activities.engine import ReconcileReport, ReconcileRequest
from activities.housekeeping import PurgeRequest, PurgeResult
from activities.organizations import (
    BonusRefreshRequest,
    BonusRefreshResult,
    KpiDayRequest,
    KpiDayResult,
    KpiPlan,
    KpiPlanRequest,
)
from activities.tokens import (
    DepositScanReport,
    DepositScanRequest,
    OracleCloseRequest,
    OracleClosesRecorded,
    OracleWriteRequest,
    OracleWriteResult,
)
from activities.webhooks import PumpInput, PumpResult
from core.config import Settings, WebhookSettings
from engine.search import STATUS
from tests.workflows.support import error_types, rejection, retryable, workflow_id, workflows_with
from workflows.housekeeping import HousekeepingInput, HousekeepingWorkflow
from workflows.organizations import DailyKpiInput, DailyKpiWorkflow
from workflows.reconcile import ReconcileInput, ReconcileWorkflow
from workflows.schedules import deposit_follow_seconds, ensure_deposit_schedule
from workflows.tokens import DepositScanInput, DepositScanWorkflow, OracleInput, OracleWorkflow
from workflows.webhooks import _PUMP, RUNS_PER_HISTORY, PumpWorkflowInput, WebhookPumpWorkflow


def kpi_activities(
    steps: list[str], fail_day: str | None = None, reject_day: str | None = None
) -> tuple[Callable[..., Any], ...]:
    failed: set[str] = set()

    @activity.defn(name="organizations.kpi_plan")
    async def plan(request: KpiPlanRequest) -> KpiPlan:
        steps.append(f"plan:{request.through}")
        return KpiPlan(days=["2026-01-01", "2026-01-02", "2026-01-03"])

    @activity.defn(name="organizations.kpi_day")
    async def run_day(request: KpiDayRequest) -> KpiDayResult:
        steps.append(request.day)
        if request.day == reject_day:
            raise rejection("KpiDayInvalid")
        if request.day == fail_day and request.day not in failed:
            failed.add(request.day)
            raise retryable()
        return KpiDayResult(request.day, skipped=request.day.endswith("02"), kpi_rows=1,
                            units_changed=0)  # fmt: skip

    @activity.defn(name="organizations.refresh_bonus_cache")
    async def refresh(request: BonusRefreshRequest) -> BonusRefreshResult:
        steps.append("refresh")
        return BonusRefreshResult(members=7, stations=2)

    return plan, run_day, refresh


async def test_daily_kpi_runs_each_day_in_order_then_refreshes_the_cache(
    temporal_env: WorkflowEnvironment,
) -> None:
    steps: list[str] = []
    async with workflows_with(temporal_env.client, *kpi_activities(steps, "2026-01-02")) as q:
        result = await temporal_env.client.execute_workflow(
            DailyKpiWorkflow.run, DailyKpiInput("2026-01-03"), id=workflow_id("kpi"), task_queue=q
        )
    # The day that failed once is retried in place, before the next day starts.
    assert steps == [
        "plan:2026-01-03", "2026-01-01", "2026-01-02", "2026-01-02", "2026-01-03", "refresh",
    ]  # fmt: skip
    assert result.days == ["2026-01-01", "2026-01-03"]
    assert (result.skipped, result.members_cached) == (["2026-01-02"], 7)


async def test_daily_kpi_stops_at_a_rejected_day(temporal_env: WorkflowEnvironment) -> None:
    steps: list[str] = []
    activities = kpi_activities(steps, reject_day="2026-01-02")
    async with workflows_with(temporal_env.client, *activities) as q:
        with pytest.raises(WorkflowFailureError) as failed:
            await temporal_env.client.execute_workflow(
                DailyKpiWorkflow.run, DailyKpiInput(), id=workflow_id("kpi"), task_queue=q
            )
    assert steps == ["plan:None", "2026-01-01", "2026-01-02"]  # no later day, no refresh
    assert error_types(failed.value) == ["KpiDayInvalid"]


async def test_oracle_records_then_writes_each_close_in_order(
    temporal_env: WorkflowEnvironment,
) -> None:
    steps: list[str] = []

    @activity.defn(name="tokens.oracle_record_closes")
    async def record(request: OracleCloseRequest) -> OracleClosesRecorded:
        steps.append("record")
        assert request.now.endswith("+00:00")  # the workflow's own clock, in UTC
        return OracleClosesRecorded(recorded=["c2"], to_write=["c1", "c2"])

    @activity.defn(name="tokens.oracle_write_close")
    async def write(request: OracleWriteRequest) -> OracleWriteResult:
        steps.append(request.close_key)
        if steps.count("c1") == 1 and request.close_key == "c1":
            raise retryable("ChainUnavailable")
        return OracleWriteResult(request.close_key, f"sig-{request.close_key}", 1)

    async with workflows_with(temporal_env.client, record, write) as q:
        report = await temporal_env.client.execute_workflow(
            OracleWorkflow.run, OracleInput(), id=workflow_id("oracle"), task_queue=q
        )
    assert steps == ["record", "c1", "c1", "c2"]
    assert report.recorded == ["c2"]
    assert report.written == {"c1": "sig-c1", "c2": "sig-c2"}


async def test_a_deposit_scan_gives_up_after_three_attempts(
    temporal_env: WorkflowEnvironment,
) -> None:
    attempts: list[int] = []

    @activity.defn(name="tokens.scan_deposits")
    async def scan(request: DepositScanRequest) -> DepositScanReport:
        attempts.append(activity.info().attempt)
        raise retryable("ChainUnavailable")

    async with workflows_with(temporal_env.client, scan) as q:
        with pytest.raises(WorkflowFailureError) as failed:
            await temporal_env.client.execute_workflow(
                DepositScanWorkflow.run, DepositScanInput("t"), id=workflow_id("dep"), task_queue=q
            )
    # The next scheduled pass tries again; this one does not pile up retries.
    assert attempts == [1, 2, 3]
    assert error_types(failed.value) == ["ChainUnavailable"]


async def test_a_deposit_scan_returns_its_report(temporal_env: WorkflowEnvironment) -> None:
    @activity.defn(name="tokens.scan_deposits")
    async def scan(request: DepositScanRequest) -> DepositScanReport:
        return DepositScanReport(accounts=3, credited=1, deposits=[{"note": request.note}])

    async with workflows_with(temporal_env.client, scan) as q:
        report = await temporal_env.client.execute_workflow(
            DepositScanWorkflow.run, DepositScanInput("hi"), id=workflow_id("dep"), task_queue=q
        )
    assert (report.accounts, report.credited, report.deposits) == (3, 1, [{"note": "hi"}])


async def test_reconcile_marks_drift_in_the_status(temporal_env: WorkflowEnvironment) -> None:
    seen: list[str] = []

    @activity.defn(name="engine.reconcile")
    async def reconcile(request: ReconcileRequest) -> ReconcileReport:
        seen.append(request.run_id)
        return ReconcileReport(request.run_id, checked=4, skipped=0, drifts=[{"user_uid": "u"}])

    async with workflows_with(temporal_env.client, reconcile) as q:
        handle = await temporal_env.client.start_workflow(
            ReconcileWorkflow.run, ReconcileInput(), id=workflow_id("rec"), task_queue=q
        )
        report = await handle.result()
    assert seen == [handle.result_run_id] and report.checked == 4
    described = await handle.describe()
    assert described.typed_search_attributes.get(STATUS) == "drift"


async def test_housekeeping_purges_batch_by_batch_until_done(
    temporal_env: WorkflowEnvironment,
) -> None:
    batches: list[int] = []

    @activity.defn(name="housekeeping.purge_idempotency")
    async def purge(request: PurgeRequest) -> PurgeResult:
        batches.append(request.batch)
        last = len(batches) == 3  # the first run's backlog ends in its third batch
        return PurgeResult(deleted=1 if last else request.batch, more=not last)

    async with workflows_with(temporal_env.client, purge) as q:
        done = await temporal_env.client.execute_workflow(
            HousekeepingWorkflow.run, HousekeepingInput(batch=10), id=workflow_id("hk"),
            task_queue=q,
        )  # fmt: skip
        capped = await temporal_env.client.execute_workflow(
            HousekeepingWorkflow.run, HousekeepingInput(batch=10, max_batches=2),
            id=workflow_id("hk"), task_queue=q,
        )  # fmt: skip
    assert done.idempotency_records_deleted == 21
    assert capped.idempotency_records_deleted == 20  # stops at max_batches, more or not
    assert batches == [10, 10, 10, 10, 10]


async def test_the_webhook_pump_survives_failures_and_continues_as_new(
    temporal_env: WorkflowEnvironment,
) -> None:
    runs: list[float] = []
    next_history = asyncio.Event()

    @activity.defn(name="webhooks.pump")
    async def pump(data: PumpInput) -> PumpResult:
        runs.append(data.seconds)
        if len(runs) > RUNS_PER_HISTORY + 1:  # the 50 successful runs, then one more
            next_history.set()
        if len(runs) == 1:
            raise retryable()  # a crashed run is retried (unlimited attempts)
        return PumpResult(sent=0, succeeded=0, failed_attempts=0)

    wf_id = workflow_id("pump")
    async with workflows_with(temporal_env.client, pump) as q:
        handle = await temporal_env.client.start_workflow(
            WebhookPumpWorkflow.run, PumpWorkflowInput(), id=wf_id, task_queue=q
        )
        await asyncio.wait_for(next_history.wait(), timeout=60)
        first = await temporal_env.client.get_workflow_handle(
            wf_id, run_id=handle.first_execution_run_id
        ).describe()
        await handle.terminate("test over")
    assert first.status == WorkflowExecutionStatus.CONTINUED_AS_NEW
    assert set(runs) == {300.0}


def test_an_idle_pump_looks_every_20_s_and_heartbeats_in_time() -> None:
    """An idle pump is woken by NOTIFY and its own retries; its safety look every 20 s (was 5:
    about 0.45 ms/s of an idle worker's CPU, issue 43) is also its heartbeat, so it stays well
    under the pump's heartbeat timeout (a longer wait would have the run retried as lost)."""
    idle = Settings.model_fields["webhook_idle_poll_seconds"].default
    assert idle == 20.0 and WebhookSettings().idle_poll_seconds == idle
    assert _PUMP.heartbeat is not None and idle <= _PUMP.heartbeat.total_seconds() - 10


def test_a_deposit_watcher_run_follows_until_3_s_before_the_next() -> None:
    """Whatever the interval (90 s by default, was 30: issue 43), the chain is unwatched
    3 s per run as it was at 30 s (it was 10 % of the interval)."""
    assert Settings.model_fields["deposit_scan_seconds"].default == 90.0
    assert deposit_follow_seconds(timedelta(seconds=90)) == 87.0
    assert deposit_follow_seconds(timedelta(seconds=30)) == 27.0
    assert deposit_follow_seconds(timedelta(seconds=2)) == 1.8  # a test's short interval


async def test_the_deposit_watcher_starts_with_its_schedule(
    temporal_env: WorkflowEnvironment,
) -> None:
    """A new deployment's watcher runs at once (issue 43: at a 90 s interval a fresh `mccgw dev`
    would otherwise wait up to 90 s for the first firing to credit its demo deposits); a worker
    that finds the schedule does not start another run, and moves an earlier deployment's
    schedule (overlap SKIP) to BUFFER_ONE: a firing during the first run starts after it
    instead of leaving an interval unwatched. A queue no worker polls: the run only starts."""
    client = temporal_env.client
    schedule_id, run_id = workflow_id("deposit-schedule"), workflow_id("deposit-scan")
    queue = workflow_id("no-worker")
    handle = client.get_schedule_handle(schedule_id)

    async def ensure() -> None:
        every = timedelta(hours=1)  # no firing of its own during the test
        await ensure_deposit_schedule(
            client, queue, every, schedule_id=schedule_id, workflow_id=run_id
        )

    async def actions() -> int:
        for _ in range(50):
            info = (await handle.describe()).info
            if info.num_actions:
                return info.num_actions
            await asyncio.sleep(0.1)
        return 0

    await ensure()
    try:
        assert await actions() == 1
        described = await handle.describe()
        assert described.schedule.policy.overlap == ScheduleOverlapPolicy.BUFFER_ONE
        running = _started(described.info.running_actions)
        assert len(running) == 1 and running[0].startswith(run_id)
        started = await client.get_workflow_handle(running[0]).describe()
        assert started.workflow_type == "DepositScanWorkflow" and started.task_queue == queue
        await ensure()  # another worker's start
        await asyncio.sleep(1.0)
        assert await actions() == 1

        def skip(current: ScheduleUpdateInput) -> ScheduleUpdate:
            schedule = current.description.schedule
            return ScheduleUpdate(
                dataclasses.replace(
                    schedule, policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP)
                )
            )

        await handle.update(skip)
        await ensure()
        described = await handle.describe()
        assert described.schedule.policy.overlap == ScheduleOverlapPolicy.BUFFER_ONE
        assert described.schedule.spec.intervals[0].every == timedelta(hours=1)
    finally:
        running = _started((await handle.describe()).info.running_actions)
        await handle.delete()
        for run in running:
            with contextlib.suppress(RPCError):
                await client.get_workflow_handle(run).terminate("test over")


def _started(actions: Sequence[ScheduleActionExecution]) -> list[str]:
    return [a.workflow_id for a in actions if isinstance(a, ScheduleActionExecutionStartWorkflow)]
