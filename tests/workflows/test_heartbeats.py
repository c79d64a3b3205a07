"""Steps that run for seconds heartbeat, so that a worker killed during one is noticed in 10 s
rather than at the step's timeout (minutes): a batch's chain steps (``mining.mint``,
``mining.confirm``; the chaos suite's short form found six submissions pending two minutes after
a worker kill), the deposit watcher's pass and onboarding's whitelist writes."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import activity
from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment

from activities.engine import TransferRef
from activities.heartbeat import EVERY_SECONDS, heartbeating
from activities.mining import ConfirmResult, MintChunk, MintInput, MintResult, VerifyInput
from activities.onboarding import WhitelistChange, WhitelistSettle, WhitelistWritten
from activities.tokens import DepositScanReport, DepositScanRequest
from engine.settlement import Settled
from mining.mints import MintItem
from mining.settle import VerifyResult
from tests.workflows.support import workflow_id, workflows_with
from workflows.mining import MiningInput, MiningSubmissionWorkflow
from workflows.tokens import DepositScanInput, DepositScanWorkflow
from workflows.transfers import TransferInput, TransferWorkflow
from workflows.whitelist import WhitelistChangeInput, WhitelistChangeWorkflow


def heartbeat_timeouts(history: WorkflowHistory) -> dict[str, timedelta]:
    """The heartbeat timeout each activity type was scheduled with."""
    return {
        e.activity_task_scheduled_event_attributes.activity_type.name: (
            e.activity_task_scheduled_event_attributes.heartbeat_timeout.ToTimedelta()
        )
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }


async def test_a_batchs_chain_steps_heartbeat(temporal_env: WorkflowEnvironment) -> None:
    @activity.defn(name="mining.verify")
    async def verify(data: VerifyInput) -> VerifyResult:
        return VerifyResult(verified=[MintItem(i, "u-1", 5) for i in data.activity_ids])

    @activity.defn(name="mining.mint")
    async def mint(data: MintInput) -> MintResult:
        activity.heartbeat()
        return MintResult([MintChunk(f"{data.op_key_base}:0", [i.activity_id for i in data.items])])

    @activity.defn(name="mining.confirm")
    async def confirm(data: MintResult) -> ConfirmResult:
        activity.heartbeat()
        return ConfirmResult(confirmed=[i for c in data.chunks for i in c.activity_ids])

    async with workflows_with(temporal_env.client, verify, mint, confirm) as queue:
        wf_id = workflow_id("mining-batch")
        result = await temporal_env.client.execute_workflow(
            MiningSubmissionWorkflow.run,
            MiningInput(activity_ids=["a-1", "a-2"], op_key_base=f"mining:{wf_id}"),
            id=wf_id,
            task_queue=queue,
        )
        history = await temporal_env.client.get_workflow_handle(wf_id).fetch_history()
    assert sorted(result.confirmed) == ["a-1", "a-2"]
    heartbeats = heartbeat_timeouts(history)
    assert heartbeats["mining.mint"] == timedelta(seconds=10)
    assert heartbeats["mining.confirm"] == timedelta(seconds=10)


async def test_a_deposit_pass_heartbeats(temporal_env: WorkflowEnvironment) -> None:
    """The deposit watcher's pass follows the chain for seconds: a worker killed during it held
    the schedule (overlap: skip) for the activity's 2 min timeout, crediting nothing (the chaos
    short form waited 69 s for four deposits). It heartbeats, under a 10 s heartbeat timeout."""

    @activity.defn(name="tokens.scan_deposits")
    async def scan(request: DepositScanRequest) -> DepositScanReport:
        return DepositScanReport()

    async with workflows_with(temporal_env.client, scan) as queue:
        wf_id = workflow_id("deposit-scan")
        await temporal_env.client.execute_workflow(
            DepositScanWorkflow.run, DepositScanInput(note="test"), id=wf_id, task_queue=queue
        )
        history = await temporal_env.client.get_workflow_handle(wf_id).fetch_history()
    [scheduled] = [
        e.activity_task_scheduled_event_attributes
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert scheduled.heartbeat_timeout.ToTimedelta() == timedelta(seconds=10)


async def test_a_whitelist_write_heartbeats(temporal_env: WorkflowEnvironment) -> None:
    """A whitelist write waits for its finality (up to a minute): it heartbeats under a 10 s
    heartbeat timeout, so a killed worker's try moves on before the step's 90 s timeout."""

    @activity.defn(name="onboarding.whitelist_change")
    async def change(data: WhitelistChange) -> WhitelistWritten:
        return WhitelistWritten(succeeded=True, signature="sig", error="")

    @activity.defn(name="onboarding.whitelist_settle")
    async def settle(data: WhitelistSettle) -> None:
        return None

    async with workflows_with(temporal_env.client, change, settle) as queue:
        wf_id = workflow_id("whitelist-change")
        await temporal_env.client.execute_workflow(
            WhitelistChangeWorkflow.run,
            WhitelistChangeInput(project_id=1, action="suspend", op_key="whitelist:1:suspend:1"),
            id=wf_id,
            task_queue=queue,
        )
        history = await temporal_env.client.get_workflow_handle(wf_id).fetch_history()
    heartbeats = heartbeat_timeouts(history)
    assert heartbeats["onboarding.whitelist_change"] == timedelta(seconds=10)


async def test_a_step_done_within_its_first_beat_sends_no_heartbeat(
    temporal_env: WorkflowEnvironment,
) -> None:
    """A heartbeating step beats first ``EVERY_SECONDS`` after its start, not at once: a
    transfer's settle (about a second) cost the server a heartbeat call and a write of the
    activity's state for nothing (issue 43 pass four); a silent worker is still found by the
    heartbeat timeout, which runs from the try's start. The server saw no heartbeat from a try
    still running under the first beat, and one after it."""
    gate = asyncio.Event()

    @activity.defn(name="engine.transfer_settle")
    @heartbeating
    async def settle(ref: TransferRef) -> Settled:
        await gate.wait()
        return Settled("completed", "sig", 1, 1)

    async with workflows_with(temporal_env.client, settle) as queue:
        wf_id = workflow_id("transfer")
        handle = await temporal_env.client.start_workflow(
            TransferWorkflow.run, TransferInput("t-1"), id=wf_id, task_queue=queue
        )

        async def last_beat() -> tuple[bool, bool]:
            """(the try is running, the server has a heartbeat of it)."""
            pending = (await handle.describe()).raw_description.pending_activities
            if (
                not pending
                or pending[0].state != PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
            ):
                return False, False
            return True, pending[0].HasField("last_heartbeat_time")

        for _ in range(200):
            running, _ = await last_beat()
            if running:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.5)  # a first beat at the start would be at the server by now
        assert await last_beat() == (True, False)
        await asyncio.sleep(EVERY_SECONDS)
        assert await last_beat() == (True, True)
        gate.set()
        assert (await handle.result()).status == "completed"
