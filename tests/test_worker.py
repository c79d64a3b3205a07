"""The worker registers its workflows and runs them on a real Temporal server."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import uuid

from temporalio import activity
from temporalio.testing import WorkflowEnvironment

import activities
from activities.deps import worker_deps
from core.config import Settings
from worker import build_activities, build_worker
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
