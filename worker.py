"""The Temporal worker: connects once, builds every client once, registers every workflow and
activity, and drains gracefully on SIGTERM/SIGINT.

To add a capability: append its workflow classes to WORKFLOWS and its activities to
build_activities. An activity class takes the shared WorkerDeps (``X(deps)``) and names each
activity ``<capability>.<verb>``, the capability being its module under activities/ and the verb
its method (tests/test_worker.py checks both, and that every activity defined is registered).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import signal
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import uvloop
from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from activities.deps import WorkerDeps, worker_deps
from activities.engine import EngineActivities
from activities.housekeeping import HousekeepingActivities
from activities.mining import MiningActivities
from activities.onboarding import OnboardingActivities
from activities.organizations import OrganizationActivities
from activities.system import echo
from activities.tokens import TokenActivities
from activities.webhooks import WebhookActivities
from activities.withdrawals import WithdrawalActivities
from core.config import Settings, get_settings
from core.logging import configure_logging
from core.metrics import WorkflowMetrics, serve
from core.queues import MAIN_TASK_QUEUE
from workflows.approval import ApprovalWorkflow
from workflows.funds import FundLockWorkflow
from workflows.housekeeping import HousekeepingWorkflow
from workflows.mining import MiningSubmissionWorkflow
from workflows.organizations import DailyKpiWorkflow
from workflows.pump import ensure_pump
from workflows.reconcile import ReconcileWorkflow
from workflows.recovery import RecoveryWorkflow
from workflows.reference import PingWorkflow
from workflows.schedules import ensure_schedules
from workflows.tokens import DepositScanWorkflow, OracleWorkflow
from workflows.transfers import TransferWorkflow
from workflows.webhooks import WebhookPumpWorkflow
from workflows.whitelist import WhitelistChangeWorkflow
from workflows.withdrawals import WithdrawalWorkflow

log = logging.getLogger("mccgw.worker")

WORKFLOWS: Sequence[type] = (
    PingWorkflow,
    ApprovalWorkflow,
    WhitelistChangeWorkflow,
    WebhookPumpWorkflow,
    MiningSubmissionWorkflow,
    FundLockWorkflow,
    TransferWorkflow,
    WithdrawalWorkflow,
    ReconcileWorkflow,
    RecoveryWorkflow,
    HousekeepingWorkflow,
    DailyKpiWorkflow,
    DepositScanWorkflow,
    OracleWorkflow,
)


def build_activities(deps: WorkerDeps) -> list[Callable[..., Any]]:
    """Every activity the worker runs: each class built once with the process's clients, its
    activities listed by name (the SDK offers no public way to collect them)."""
    onboarding = OnboardingActivities(deps)
    webhooks = WebhookActivities(deps)
    mining = MiningActivities(deps)
    engine = EngineActivities(deps)
    housekeeping = HousekeepingActivities(deps)
    organizations = OrganizationActivities(deps)
    tokens = TokenActivities(deps)
    withdrawals = WithdrawalActivities(deps)
    return [
        echo,
        onboarding.create_project,
        onboarding.whitelist_add,
        onboarding.complete_approval,
        onboarding.approval_failed,
        onboarding.whitelist_change,
        onboarding.whitelist_settle,
        webhooks.pump,
        mining.verify,
        mining.mint,
        mining.confirm,
        mining.settle_single,
        mining.fail,
        engine.transfer_settle,
        engine.lock_expire,
        engine.reconcile,
        engine.find_orphans,
        withdrawals.look,
        withdrawals.send,
        housekeeping.purge_idempotency,
        organizations.kpi_plan,
        organizations.kpi_day,
        organizations.refresh_bonus_cache,
        tokens.scan_deposits,
        tokens.oracle_record_closes,
        tokens.oracle_sample,
        tokens.oracle_write_close,
    ]


# Our own packages are imported once, outside the sandbox, instead of being re-executed in a
# fresh sandbox for every workflow run (profiling showed that re-import as a third of the
# worker's CPU). Safe because they keep no mutable module state; the sandbox still isolates
# each run's globals and restricts what the workflow code itself may call.
PASSTHROUGH_MODULES = (
    "workflows", "activities", "engine", "chain", "core", "db", "events", "ledger", "mining",
    "onboarding", "organizations", "api", "tokens", "webhooks",
)  # fmt: skip
WORKFLOW_RUNNER = SandboxedWorkflowRunner(
    restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
)


def build_worker(
    client: Client, deps: WorkerDeps, task_queue: str = MAIN_TASK_QUEUE, **options: Any
) -> Worker:
    return Worker(
        client,
        task_queue=task_queue,
        workflows=list(WORKFLOWS),
        activities=build_activities(deps),
        workflow_runner=WORKFLOW_RUNNER,
        graceful_shutdown_timeout=timedelta(seconds=10),
        # A transfer's and a single mining submission's settle step holds its activity slot
        # until finality, about a second: the default 100 slots would cap the engine at 100
        # transfers in flight, well below what it settles per second under load.
        max_concurrent_activities=500,
        max_concurrent_local_activities=500,
        max_concurrent_workflow_tasks=500,
        interceptors=[WorkflowMetrics()],
        **options,
    )


async def ensure_webhook_pump(
    client: Client, task_queue: str, stop: asyncio.Event, first_delay: float = 1.0
) -> None:
    """The delivery pump runs from the start, whatever writes the events (a mining submission
    does not start it): tried until it is started (doubling the wait up to a minute), or until
    the worker stops. Once started it runs for good (it continues as new)."""
    delay = first_delay
    while not stop.is_set():
        try:
            await ensure_pump(client, task_queue, force=True)
            return
        except Exception as exc:
            log.warning("could not start the webhook pump, retrying in %.0f s: %r", delay, exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        delay = min(delay * 2, 60.0)


async def run(settings: Settings, task_queue: str | None = None, schedules: bool = True) -> None:
    task_queue = task_queue or settings.task_queue
    client = await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if settings.worker_metrics_port:
        serve(settings.worker_metrics_port)  # Prometheus scrapes it (core.metrics)
    async with worker_deps(settings) as deps:
        worker = build_worker(client, deps, task_queue=task_queue)
        if schedules:
            await ensure_schedules(
                client, task_queue, timedelta(seconds=settings.deposit_scan_seconds)
            )
        pump = asyncio.create_task(ensure_webhook_pump(client, task_queue, stop))
        log.info("worker polling", extra={"task_queue": task_queue})
        async with worker:
            gc.freeze()  # as the API does (api.app): long-lived objects out of the collector's way
            print(f"worker polling {task_queue}", flush=True)  # a line scripts can wait for
            await stop.wait()
            log.info("worker draining")
        pump.cancel()  # finished long ago, unless the pump could never be started
    log.info("worker stopped")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="worker", description="the mccgw Temporal worker")
    parser.add_argument("--task-queue", help="default: TASK_QUEUE (Settings.task_queue)")
    parser.add_argument(
        "--no-schedules",
        action="store_true",
        help="create no schedules (bench.costs: nothing but the work it drives runs)",
    )
    args = parser.parse_args(argv)
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_json)
    if settings.worker_nice:
        # Settling yields the CPU to accepting where both share a host (Settings.worker_nice).
        os.nice(settings.worker_nice)
    # uvloop: the same event loop uvicorn gives the API; asyncio's own costs more CPU per task.
    uvloop.run(run(settings, args.task_queue, schedules=not args.no_schedules))


if __name__ == "__main__":
    main()
