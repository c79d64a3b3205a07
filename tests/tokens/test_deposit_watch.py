"""The worker's one deposit scanner while it follows the chain (WorkerDeps.deposits): a newly
watched account is heard of by NOTIFY on the worker's one listener (db/notify.py) and caught
up at once, not at the next look (every 30 s while listening), and a deposit to it is credited
while the scanner follows. A worker that stops ends its follow at once, and the retry follows
on."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps
from core.config import Settings
from db.models.tokens import CustodyWatch, Deposit
from devchain.outside import OutsideWallet
from tests.factories import World
from tests.stack import new_queue, running_worker
from tests.tokens.conftest import UNIT
from tokens.deposits import deposit_address, register
from workflows.tokens import DepositScanInput, DepositScanWorkflow


async def until(probe: Callable[[], Awaitable[object]], seconds: float) -> None:
    async with asyncio.timeout(seconds):
        while not await probe():  # noqa: ASYNC110 (a database row, no event to wait on)
            await asyncio.sleep(0.05)


async def _watch(deps: WorkerDeps, uid: str) -> None:
    """What a user's first balance read does: the MCC custody account watched."""
    async with deps.sessions() as session:
        await register(session, deps.gateway, uid, "MCC")
        await session.commit()


def _ready(deps: WorkerDeps, uid: str) -> Callable[[], Awaitable[bool]]:
    """A probe: the user's MCC custody account is caught up by a follow."""
    address, _ = deposit_address(deps.gateway.keys, uid, "MCC")

    async def probe() -> bool:
        async with deps.sessions() as session:
            return bool(
                await session.scalar(
                    select(CustodyWatch.ready).where(CustodyWatch.address == address)
                )
            )

    return probe


def _credited(deps: WorkerDeps, signature: str) -> Callable[[], Awaitable[bool]]:
    """A probe: the deposit with this signature is credited."""

    async def probe() -> bool:
        async with deps.sessions() as session:
            outcome = await session.scalar(
                select(Deposit.outcome).where(Deposit.signature == signature)
            )
        return outcome == "credited"

    return probe


async def test_a_newly_watched_account_is_heard_of_by_notify_and_its_deposit_credited(
    world: World, deps: WorkerDeps, outsider: OutsideWallet
) -> None:
    scanner = deps.deposits

    async def watch() -> str:
        uid = (await world.user()).uid
        await _watch(deps, uid)
        return uid

    first = await watch()  # a watched set that is not empty: the follower looks every 30 s
    stop = asyncio.Event()
    following = asyncio.create_task(scanner.follow(90, poll=0.1, stop=stop))
    try:
        await until(_ready(deps, first), 30)

        async def listening() -> bool:
            return scanner.listening

        await until(listening, 10)
        await asyncio.sleep(2.0)  # past its last look: the next one is about 30 s away
        began = time.monotonic()
        uid = await watch()
        await until(_ready(deps, uid), 25)
        took = time.monotonic() - began
        assert took < 10.0, f"the new account was caught up after {took:.1f} s"

        custody = deps.gateway.custody_address(uid, "MCC")
        sig = await outsider.deposit(deps.gateway, "MCC", custody, 2 * UNIT)
        await until(_credited(deps, sig), 20)
    finally:
        stop.set()
        await following


async def _follow_started(handle: WorkflowHandle[Any, Any], attempt: int) -> bool:
    pending = (await handle.describe()).raw_description.pending_activities
    started = PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
    return any(a.state == started and a.attempt == attempt for a in pending)


async def test_a_stopping_worker_ends_its_follow_at_once_and_the_retry_follows_on(
    temporal_env: WorkflowEnvironment,
    app_settings: Settings,
    world: World,
    deps: WorkerDeps,
    outsider: OutsideWallet,
) -> None:
    """A deploy stops workers: the deposit watcher's follow (a minute here, the schedule's
    interval in production) ends as soon as its worker starts shutting down, its cursor saved,
    instead of holding the stop for the worker's whole grace period (10 s, worker.py) until
    the SDK cancels it. The workflow's retry follows on with the next worker, so a deposit sent
    while no worker runs is credited without waiting for the schedule's next run."""
    queue = new_queue("follow-stop")
    handle = await temporal_env.client.start_workflow(
        DepositScanWorkflow.run,
        DepositScanInput(note="test", follow_seconds=60),
        id=f"follow-stop-{uuid.uuid4().hex}",
        task_queue=queue,
    )
    uid = (await world.user()).uid
    try:
        async with running_worker(temporal_env.client, app_settings, queue) as first:
            await until(lambda: _follow_started(handle, 1), 20)
            await _watch(first, uid)  # watched, caught up by this follow
            await until(_ready(deps, uid), 20)
            stopping = time.monotonic()
        took = time.monotonic() - stopping
        assert took < 5.0, f"the worker's shutdown waited {took:.1f} s for its follow"
        pending = (await handle.describe()).raw_description.pending_activities
        assert [a.last_failure.application_failure_info.type for a in pending] == [
            "WorkerShutdown"
        ], pending

        custody = deps.gateway.custody_address(uid, "MCC")
        sig = await outsider.deposit(deps.gateway, "MCC", custody, 3 * UNIT)
        async with running_worker(temporal_env.client, app_settings, queue):
            await until(lambda: _follow_started(handle, 2), 20)
            await until(_credited(deps, sig), 20)
    finally:
        with contextlib.suppress(Exception):
            await handle.terminate("test over")
