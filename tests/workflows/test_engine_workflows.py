"""Transfers, fund locks and the recovery sweep: their orchestration, activities stood in for."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from temporalio import activity
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError
from temporalio.testing import WorkflowEnvironment

from activities.engine import LockOutcome, LockRef, OrphanQuery, TransferRef, TransferStep
from engine.recovery import Orphan
from engine.search import STATUS
from tests.workflows.support import (
    error_types,
    rejection,
    retryable,
    workflow_id,
    workflows_with,
)
from workflows.funds import FundLockInput, FundLockResult, FundLockWorkflow
from workflows.recovery import RecoveryInput, RecoveryWorkflow
from workflows.transfers import TransferInput, TransferResult, TransferWorkflow


async def status_of(env: WorkflowEnvironment, wf_id: str) -> str | None:
    described = await env.client.get_workflow_handle(wf_id).describe()
    return described.typed_search_attributes.get(STATUS)


async def test_transfer_settle_is_retried_through_a_passing_outage(
    temporal_env: WorkflowEnvironment,
) -> None:
    attempts: list[int] = []

    @activity.defn(name="engine.transfer_settle")
    async def settle(ref: TransferRef) -> TransferStep:
        attempts.append(activity.info().attempt)
        if len(attempts) < 3:
            raise retryable("ReceiptUnavailable")
        return TransferStep(status="completed", signature=f"sig-{ref.transfer_id}")

    async with workflows_with(temporal_env.client, settle) as queue:
        wf_id = workflow_id("transfer")
        result = await temporal_env.client.execute_workflow(
            TransferWorkflow.run, TransferInput("t-1"), id=wf_id, task_queue=queue
        )
    assert attempts == [1, 2, 3]
    assert (result.status, result.signature) == ("completed", "sig-t-1")
    assert await status_of(temporal_env, wf_id) == "completed"


async def test_the_settle_step_is_an_activity_of_its_own_that_heartbeats(
    temporal_env: WorkflowEnvironment,
) -> None:
    """Settling lasts until finality (seconds under load): as a local activity it held the
    workflow's task open that long (issue 30). It is scheduled as an activity task with a
    heartbeat timeout, so the workflow's task ends at once and a dead worker's try is retried."""

    @activity.defn(name="engine.transfer_settle")
    async def settle(ref: TransferRef) -> TransferStep:
        activity.heartbeat()
        await asyncio.sleep(1.5)
        return TransferStep(status="completed")

    async with workflows_with(temporal_env.client, settle) as queue:
        wf_id = workflow_id("transfer")
        await temporal_env.client.execute_workflow(
            TransferWorkflow.run, TransferInput("t-long"), id=wf_id, task_queue=queue
        )
        history = await temporal_env.client.get_workflow_handle(wf_id).fetch_history()
    scheduled = [
        e.activity_task_scheduled_event_attributes
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert [a.activity_type.name for a in scheduled] == ["engine.transfer_settle"]
    assert scheduled[0].heartbeat_timeout.ToTimedelta() == timedelta(seconds=15)
    assert not [e for e in history.events if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED]


async def rejected_transfer(
    env: WorkflowEnvironment, rejection_type: str
) -> tuple[WorkflowFailureError, int, str]:
    """Run a transfer whose settle step rejects it: (the failure, settle calls, workflow id)."""
    calls = 0

    @activity.defn(name="engine.transfer_settle")
    async def settle(ref: TransferRef) -> TransferStep:
        nonlocal calls
        calls += 1
        raise rejection(rejection_type)

    wf_id = workflow_id("transfer")
    async with workflows_with(env.client, settle) as queue:
        with pytest.raises(WorkflowFailureError) as failed:
            await env.client.execute_workflow(
                TransferWorkflow.run, TransferInput("t-rejected"), id=wf_id, task_queue=queue
            )
    return failed.value, calls, wf_id


async def test_a_transfer_never_committed_ends_failed_and_abandoned(
    temporal_env: WorkflowEnvironment,
) -> None:
    failure, calls, wf_id = await rejected_transfer(temporal_env, "TransferNotFound")
    assert calls == 1  # a business rejection is never retried
    assert "never committed" in str(failure.cause)
    assert await status_of(temporal_env, wf_id) == "abandoned"


async def test_a_chain_write_conflict_fails_the_transfer_for_an_operator(
    temporal_env: WorkflowEnvironment,
) -> None:
    failure, calls, _ = await rejected_transfer(temporal_env, "ChainWriteConflict")
    # Not retried, and the failure says why.
    assert calls == 1
    assert error_types(failure) == ["ChainWriteConflict"]


async def test_a_transfer_settled_in_time_has_a_pings_history_and_its_status(
    temporal_env: WorkflowEnvironment,
) -> None:
    """Issue 43: no status timer on the fast path. The history is a one-activity workflow's
    (11 events) plus the final status (12); it was 14, a 15 s timer started and cancelled."""
    asked: list[float | None] = []

    @activity.defn(name="engine.transfer_settle")
    async def settle(ref: TransferRef) -> TransferStep:
        asked.append(ref.report_after_seconds)
        return TransferStep(status="completed", signature="sig-fast")

    async with workflows_with(temporal_env.client, settle) as queue:
        wf_id = workflow_id("transfer")
        await temporal_env.client.execute_workflow(
            TransferWorkflow.run, TransferInput("t-fast"), id=wf_id, task_queue=queue
        )
        history = await temporal_env.client.get_workflow_handle(wf_id).fetch_history()
    kinds = [e.event_type for e in history.events]
    assert len(kinds) == 12, [EventType.Name(k) for k in kinds]
    assert EventType.EVENT_TYPE_TIMER_STARTED not in kinds
    assert asked == [15.0]  # the step is asked to report a transfer still settling at 15 s
    assert await status_of(temporal_env, wf_id) == "completed"


async def test_a_slow_transfer_shows_its_recorded_status_then_waits_on(
    temporal_env: WorkflowEnvironment,
) -> None:
    """The settle step answers a transfer still settling after 15 s with its recorded status;
    the workflow shows it (Status) and calls again, asking again a minute later."""
    asked: list[float | None] = []
    shown = asyncio.Event()

    @activity.defn(name="engine.transfer_settle")
    async def settle(ref: TransferRef) -> TransferStep:
        asked.append(ref.report_after_seconds)
        if len(asked) < 3:
            return TransferStep(status="pending_onchain", settling=True)
        await asyncio.wait_for(shown.wait(), timeout=30)
        return TransferStep(status="completed", signature="sig-slow")

    async with workflows_with(temporal_env.client, settle) as queue:
        wf_id = workflow_id("transfer")
        handle = await temporal_env.client.start_workflow(
            TransferWorkflow.run, TransferInput("t-slow"), id=wf_id, task_queue=queue
        )
        for _ in range(300):
            if await status_of(temporal_env, wf_id) == "pending_onchain":
                break
            await asyncio.sleep(0.1)
        assert await status_of(temporal_env, wf_id) == "pending_onchain"
        shown.set()
        result = await handle.result()
    assert asked == [15.0, 60.0, 60.0]
    assert (result.status, result.signature) == ("completed", "sig-slow")
    assert await status_of(temporal_env, wf_id) == "completed"


async def test_a_lock_expires_at_its_time(temporal_env: WorkflowEnvironment) -> None:
    expired: list[tuple[str, datetime]] = []

    @activity.defn(name="engine.lock_expire")
    async def lock_expire(ref: LockRef) -> LockOutcome:
        expired.append((ref.lock_id, datetime.now(UTC)))
        if len(expired) == 1:
            raise retryable()  # the database blinked: retried
        return LockOutcome(status="expired")

    expires = datetime.now(UTC) + timedelta(seconds=2)
    async with workflows_with(temporal_env.client, lock_expire) as queue:
        result = await temporal_env.client.execute_workflow(
            FundLockWorkflow.run,
            FundLockInput(lock_id="l-1", expires_at=expires.isoformat()),
            id=workflow_id("lock"),
            task_queue=queue,
        )
    assert result.status == "expired"
    assert [lock for lock, _ in expired] == ["l-1", "l-1"]
    assert expired[0][1] >= expires - timedelta(milliseconds=50)  # the timer waited


async def test_a_resolved_lock_stops_waiting_without_expiring(
    temporal_env: WorkflowEnvironment,
) -> None:
    calls = 0

    @activity.defn(name="engine.lock_expire")
    async def lock_expire(ref: LockRef) -> LockOutcome:
        nonlocal calls
        calls += 1
        return LockOutcome(status="expired")

    expires = datetime.now(UTC) + timedelta(hours=1)
    async with workflows_with(temporal_env.client, lock_expire) as queue:
        wf_id = workflow_id("lock")
        handle = await temporal_env.client.start_workflow(
            FundLockWorkflow.run,
            FundLockInput(lock_id="l-2", expires_at=expires.isoformat()),
            id=wf_id,
            task_queue=queue,
        )
        await handle.signal(FundLockWorkflow.resolved, "settled")
        result = await handle.result()
    assert (result.status, calls) == ("settled", 0)
    assert await status_of(temporal_env, wf_id) == "settled"


async def test_recovery_starts_each_orphan_once(temporal_env: WorkflowEnvironment) -> None:
    release = asyncio.Event()
    settled: list[str] = []
    tag = workflow_id("orphan")
    orphans = [
        Orphan("transfer", "t-9", f"{tag}-transfer", 7, "u-1", "MCC"),
        Orphan(
            "lock", "l-9", f"{tag}-lock", 7, "u-1", "MCD",
            expires_at=(datetime.now(UTC) + timedelta(hours=1)).isoformat(),
        ),
    ]  # fmt: skip

    @activity.defn(name="engine.find_orphans")
    async def find_orphans(query: OrphanQuery) -> list[Orphan]:
        assert query.stale_after_seconds == 5.0
        return orphans

    @activity.defn(name="engine.transfer_settle")
    async def settle(ref: TransferRef) -> TransferStep:
        settled.append(ref.transfer_id)
        await asyncio.wait_for(release.wait(), timeout=30)
        return TransferStep(status="completed")

    client = temporal_env.client
    async with workflows_with(client, find_orphans, settle) as queue:
        first = await client.execute_workflow(
            RecoveryWorkflow.run, RecoveryInput(5.0), id=workflow_id("rec"), task_queue=queue
        )
        # The children still run: a second sweep finds them started and leaves them alone.
        second = await client.execute_workflow(
            RecoveryWorkflow.run, RecoveryInput(5.0), id=workflow_id("rec"), task_queue=queue
        )
        release.set()
        transfer = await client.get_workflow_handle(
            f"{tag}-transfer", result_type=TransferResult
        ).result()
        lock = client.get_workflow_handle(f"{tag}-lock", result_type=FundLockResult)
        assert (await lock.describe()).status == WorkflowExecutionStatus.RUNNING
        await lock.signal(FundLockWorkflow.resolved, "unlocked")
        assert (await lock.result()).status == "unlocked"
    assert (first.found, first.started) == (2, 2)
    assert (second.found, second.started) == (2, 0)
    assert (transfer.transfer_id, settled) == ("t-9", ["t-9"])
