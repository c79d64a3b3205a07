"""The worker registers its workflows and runs them on a real Temporal server."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import inspect
import logging
import pkgutil
import re
import typing
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

import activities
from activities.deps import WorkerDeps, worker_deps
from core.config import Settings
from core.workflow_ids import pump_workflow_id
from worker import build_activities, build_worker, ensure_webhook_pump
from workflows.reference import PingInput, PingWorkflow

ACTIVITY_NAME = re.compile(r"^[a-z_]+\.[a-z_]+$")


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


def defined_activities() -> list[tuple[type | None, Callable[..., Any], str]]:
    """(class or None, function, activity name) of every ``@activity.defn`` of the activities
    package: methods of its classes and plain functions. The SDK has no public reader of the
    decorator's mark, so this test (and not the worker) reads the private one: an SDK change
    fails here."""
    found: list[tuple[type | None, Callable[..., Any], str]] = []
    for info in pkgutil.iter_modules(activities.__path__):
        module = importlib.import_module(f"activities.{info.name}")
        candidates: list[tuple[type | None, Callable[..., Any]]] = [
            (None, fn) for _, fn in inspect.getmembers(module, inspect.isfunction)
        ]
        for _, cls in inspect.getmembers(module, inspect.isclass):
            candidates += [(cls, fn) for _, fn in inspect.getmembers(cls, inspect.isfunction)]
        for owner, fn in candidates:
            if (owner or fn).__module__ != module.__name__:
                continue
            if (defn := activity._Definition.from_callable(fn)) is not None:
                assert defn.name is not None
                found.append((owner, fn, defn.name))
    return found


async def test_every_activity_defined_in_the_activities_package_is_registered(
    worker_settings: Settings,
) -> None:
    """A new ``@activity.defn`` (or a new activities class) that the worker does not register
    would leave its workflows waiting forever on the task queue."""
    defined = {name for _, _, name in defined_activities()}
    async with worker_deps(worker_settings) as deps:
        registered = [
            activity._Definition.must_from_callable(fn).name for fn in build_activities(deps)
        ]
    assert len(registered) == len(set(registered))
    assert "engine.transfer_settle" in defined and "system.echo" in defined
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


def test_every_activity_is_named_capability_dot_verb() -> None:
    """One style: ``<capability>.<verb>``, the capability being the activities module that
    defines it and the verb its method, so a name in the Temporal UI leads to its code."""
    wrong = [
        f"{fn.__qualname__}: {name!r}"
        for _, fn, name in defined_activities()
        if not ACTIVITY_NAME.match(name)
        or name != f"{fn.__module__.removeprefix('activities.')}.{fn.__name__}"
    ]
    assert not wrong, wrong


def test_every_activity_class_takes_the_worker_deps_only() -> None:
    """One constructor shape, ``X(deps: WorkerDeps)``: the worker builds every class the same
    way, and a class needing one more client takes it from WorkerDeps."""
    classes = {cls for cls, _, _ in defined_activities() if cls is not None}
    shapes = {
        cls.__name__: [(p.name, p.annotation) for p in inspect.signature(cls).parameters.values()]
        for cls in classes
    }
    wrong = {
        n: s
        for n, s in shapes.items()
        if s not in ([("deps", "WorkerDeps")], [("deps", WorkerDeps)])
    }
    assert len(classes) >= 7 and not wrong, wrong


def test_every_activity_takes_one_dataclass_input() -> None:
    """Workflows and activities take one dataclass input, so an input can grow a field without
    changing the activity's signature (the developers' guide)."""
    wrong = []
    for _, fn, name in defined_activities():
        hints = typing.get_type_hints(fn)
        params = [p for p in inspect.signature(fn).parameters if p != "self"]
        if len(params) != 1 or not dataclasses.is_dataclass(hints.get(params[0])):
            wrong.append(f"{name} ({fn.__qualname__}{params})")
    assert not wrong, wrong


def test_the_workflows_run_again_and_again_are_unsandboxed_and_import_nothing_unsafe() -> None:
    """A sandboxed run builds a restricted instance of its module first: the workflows a
    schedule starts every 30 s to 5 minutes (and the engine's per-transfer ones) run
    unsandboxed, which is safe only while their modules import nothing but temporalio, the
    standard library's plain types and the worker's pass-through packages
    (worker.PASSTHROUGH_MODULES). The SDK has no public reader of ``sandboxed``: this reads
    the private definition."""
    import sys
    import types

    from temporalio.workflow._definition import _Definition

    from worker import PASSTHROUGH_MODULES
    from workflows.mining import MiningSubmissionWorkflow
    from workflows.reconcile import ReconcileWorkflow
    from workflows.recovery import RecoveryWorkflow
    from workflows.tokens import DepositScanWorkflow, OracleWorkflow
    from workflows.transfers import TransferWorkflow

    allowed = {"temporalio", "dataclasses", "datetime", "typing", "builtins", "__future__"}
    allowed |= set(PASSTHROUGH_MODULES)
    for cls in (
        RecoveryWorkflow, OracleWorkflow, DepositScanWorkflow, TransferWorkflow,
        MiningSubmissionWorkflow, ReconcileWorkflow,
    ):  # fmt: skip
        assert _Definition.must_from_class(cls).sandboxed is False, cls.__name__
        module = sys.modules[cls.__module__]
        for name, value in vars(module).items():
            if isinstance(value, types.ModuleType):
                origin = value.__name__
            elif isinstance(value, type) or callable(value):
                origin = getattr(value, "__module__", None) or "builtins"
            else:
                continue
            assert origin.split(".")[0] in allowed, f"{module.__name__}.{name} from {origin}"
