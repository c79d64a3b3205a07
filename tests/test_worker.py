"""The worker registers its workflows and runs them on a real Temporal server."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import pkgutil
import uuid

import pytest
from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

import activities
from activities.deps import worker_deps
from core.config import Settings
from worker import build_activities, build_worker, ensure_webhook_pump
from workflows.pump import pump_workflow_id
from workflows.reference import PingInput, PingWorkflow


async def test_ping_workflow_runs_through_the_worker(
    temporal_env: WorkflowEnvironment, worker_settings: Settings
) -> None:
    queue = f"test-{uuid.uuid4().hex[:8]}"
    async with (
        worker_deps(worker_settings) as deps,
        build_worker(temporal_env.client, deps, task_queue=queue),
    ):
        result = await temporal_env.client.execute_workflow(
            PingWorkflow.run,
            PingInput(message="hello"),
            id=f"ping-{uuid.uuid4().hex}",
            task_queue=queue,
        )
    assert result.echoed == "hello"


async def test_every_activity_defined_in_the_activities_package_is_registered(
    worker_settings: Settings,
) -> None:
    """A new ``@activity.defn`` (or a new activities class) that the worker does not register
    would leave its workflows waiting forever on the task queue."""
    defined: set[str] = set()
    for info in pkgutil.iter_modules(activities.__path__):
        module = importlib.import_module(f"activities.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for _, fn in inspect.getmembers(cls, inspect.isfunction):
                if (found := activity._Definition.from_callable(fn)) is not None:
                    assert found.name is not None
                    defined.add(found.name)
    async with worker_deps(worker_settings) as deps:
        registered = [
            activity._Definition.must_from_callable(fn).name for fn in build_activities(deps)
        ]
    assert len(registered) == len(set(registered))
    assert "engine.transfer_settle" in defined and "echo" in defined
    assert set(registered) == defined


async def test_the_worker_starts_the_webhook_pump_and_keeps_trying_until_it_can(
    temporal_env: WorkflowEnvironment, caplog: pytest.LogCaptureFixture
) -> None:
    """The pump's one starter on a fresh deployment (the API no longer starts it on each
    mining submission): it is started at once when Temporal answers, and a refusal is retried
    rather than given up after one warning, until the worker stops."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    await asyncio.wait_for(ensure_webhook_pump(temporal_env.client, queue, asyncio.Event()), 30)
    handle = temporal_env.client.get_workflow_handle(pump_workflow_id(queue))
    try:
        assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
    finally:
        await handle.terminate("test over")

    # A namespace the server does not have: every start is refused.
    target = temporal_env.client.service_client.config.target_host
    refusing = await Client.connect(target, namespace=f"missing-{uuid.uuid4().hex[:8]}")
    stop = asyncio.Event()
    caplog.set_level(logging.WARNING, logger="mccgw.worker")
    trying = asyncio.create_task(ensure_webhook_pump(refusing, queue, stop, first_delay=0.05))
    await asyncio.sleep(1.0)
    assert not trying.done()
    stop.set()
    await asyncio.wait_for(trying, 10)
    tries = [r for r in caplog.records if "could not start the webhook pump" in r.getMessage()]
    assert len(tries) >= 3
