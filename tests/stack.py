"""The real app and a real worker, started for tests: the one way every test package builds
them. A package's conftest describes its stack once, as a ``Stack``, and binds the fixtures it
gives; everything else in a package conftest is its own data (tests/conftest.py holds the
session's services and the fixtures every app test shares: ``client``, ``world``)::

    app_settings, queue, deps, worker, app = Stack("engine", scope="module",
                                                   worker="with the app").fixtures()

- ``app_settings``: the settings the app and the worker run on (``Stack.on``, with the
  session's Temporal unless ``temporal=False``, and ``Stack.changes``);
- ``queue``: a task queue of the package's own (``<name>-<hex>``); the app starts its
  workflows on it;
- ``deps``: the worker's dependencies (``activities.deps.worker_deps``) on those settings;
- ``worker``: a real worker (every workflow and activity) polling ``queue``; its value is the
  queue;
- ``app``: the app with its lifespan run.

``Stack.worker`` says when the worker runs: ``"on demand"`` (for the app's lifetime, from the
first test that asks for ``worker``), ``"with the app"`` (every test that has the app has the
worker), ``"per test"`` (a fresh queue and worker for each test that asks, the app pointed at
it meanwhile; a test changes that worker's settings with
``@pytest.mark.webhooks(webhook_retry_schedule=(0, 0.1), ...)``), or ``None`` (no worker: the
workflows the app starts wait on a queue nobody serves).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import httpx
import pytest
from fastapi import FastAPI
from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps, worker_deps
from api.app import create_app
from core.config import Settings
from worker import build_worker
from workflows.pump import pump_workflow_id
from workflows.recovery import RecoveryInput, RecoveryWorkflow

BASE = "http://127.0.0.1:8000"
ROOT = Path(__file__).resolve().parents[1]


def new_queue(prefix: str) -> str:
    """A task queue of its own, so no other test's worker picks up these workflows."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@asynccontextmanager
async def running_app(
    app_or_settings: FastAPI | Settings, *, fresh_projects: bool = True, **state: Any
) -> AsyncIterator[FastAPI]:
    """The app (or a new one for these settings) with its lifespan run; ``state`` overrides
    app.state after start-up (e.g. ``temporal=client, task_queue=queue``)."""
    application = (
        create_app(app_or_settings) if isinstance(app_or_settings, Settings) else app_or_settings
    )
    async with application.router.lifespan_context(application):
        if fresh_projects:
            # Tests change projects between calls; see every change at once.
            application.state.project_authenticator.cache_seconds = 0.0
        for name, value in state.items():
            setattr(application.state, name, value)
        yield application


@asynccontextmanager
async def serving(client: Client, deps: WorkerDeps, queue: str) -> AsyncIterator[str]:
    """The real worker (every workflow and activity) polling ``queue`` with ``deps``; on exit,
    the webhook pump it may have started on that queue is ended with it (a pump left running
    would go on claiming later tests' deliveries under this worker's settings)."""
    try:
        async with build_worker(client, deps, task_queue=queue):
            yield queue
    finally:
        with contextlib.suppress(RPCError):
            await client.get_workflow_handle(pump_workflow_id(queue)).terminate("test over")


@asynccontextmanager
async def running_worker(
    client: Client, settings: Settings, queue: str
) -> AsyncIterator[WorkerDeps]:
    """A worker of its own, with dependencies of its own, polling ``queue``: for a test that
    starts and stops one (a restart after a crash, a worker behind a broken RPC)."""
    async with worker_deps(settings) as deps, serving(client, deps, queue):
        yield deps


@asynccontextmanager
async def asgi_client(
    app: FastAPI, base_url: str = BASE, wait_seconds: float = 60.0, **options: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the app (over ASGI, no socket)."""
    transport = httpx.ASGITransport(app=app, **options)
    async with httpx.AsyncClient(transport=transport, base_url=base_url, timeout=wait_seconds) as c:
        yield c


def worker_env(settings: Settings, **extra: str) -> dict[str, str]:
    """This process's environment, pointed at ``settings``' services: what a worker started
    as a process of its own (a crash test's, a benchmark's) reads its settings from."""
    return {
        **os.environ,
        "DATABASE_URL": settings.database_url,
        "REDIS_URL": settings.redis_url,
        "TEMPORAL_ADDRESS": settings.temporal_address,
        "SOLANA_RPC_URL": settings.solana_rpc_url,
        "CHAIN_KEYS_DIR": str(settings.chain_keys_dir),
        "ENVIRONMENT": settings.environment or "test",
        **extra,
    }


@asynccontextmanager
async def worker_process(
    settings: Settings, queue: str, *python: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The worker in a process of its own polling ``queue`` (``python -m worker``, or the
    given interpreter arguments), for a test to SIGKILL; killed on exit if still running."""
    env = worker_env(settings, LOG_JSON="false")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *(python or ("-m", "worker")), "--task-queue", queue,
        cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        ready = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert ready.startswith(b"worker polling"), ready
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def sweep(client: Client, queue: str) -> tuple[int, int]:
    """Run the recovery sweep once on ``queue``, counting every committed record as stale;
    (found, started)."""
    result = await client.execute_workflow(
        RecoveryWorkflow.run,
        RecoveryInput(stale_after_seconds=0),
        id=f"recover-test-{uuid.uuid4().hex[:8]}",
        task_queue=queue,
    )
    return result.found, result.started


Scope = Literal["session", "package", "module", "function"]
WorkerMode = Literal["on demand", "with the app", "per test"]


class StackFixtures(NamedTuple):
    """The fixtures of one package's stack, bound by name in its conftest."""

    app_settings: Any
    queue: Any
    deps: Any
    worker: Any
    app: Any


@dataclass(frozen=True)
class Stack:
    """A test package's app and worker (see the module's docstring)."""

    name: str  # its task queue's prefix
    scope: Scope = "package"  # how long the app, its queue and an "on demand" worker live
    worker: WorkerMode | None = None
    # The fixture whose settings it runs on: "stack_settings" (every session service),
    # "worker_settings" (no Temporal), "settings" (PostgreSQL and Redis only), or the
    # package's own (a chain node of its own, a database of its own).
    on: str = "stack_settings"
    temporal: bool = True  # reach the session's Temporal whatever ``on`` says
    changes: Mapping[str, Any] = field(default_factory=dict)  # its own settings
    build: Callable[[Settings], FastAPI] = create_app  # the app factory
    fresh_projects: bool = True  # see running_app

    def settings_of(self, settings: Settings, temporal: WorkflowEnvironment | None) -> Settings:
        changes = dict(self.changes)
        if temporal is not None:
            changes["temporal_address"] = temporal.client.service_client.config.target_host
        return settings.model_copy(update=changes)

    def fixtures(self) -> StackFixtures:
        stack, per_test = self, self.worker == "per test"
        worker_scope: Scope = "function" if per_test else self.scope

        def app_settings(**given: Any) -> Settings:
            return stack.settings_of(given[stack.on], given.get("temporal_env"))

        # Its arguments by name, as pytest reads them: the fixtures it stands on are then part
        # of every test's closure (torn down with a parameter change, seen by the autouse
        # fixtures that look for them, such as the rate windows' reset).
        needs = [stack.on, *(["temporal_env"] if stack.temporal else [])]
        keyword = inspect.Parameter.KEYWORD_ONLY
        app_settings.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(name, keyword) for name in dict.fromkeys(needs)]
        )

        def queue(app_settings: Settings) -> str:  # a new one with new settings (a new world)
            return new_queue(stack.name)

        async def deps(
            request: pytest.FixtureRequest, app_settings: Settings
        ) -> AsyncIterator[WorkerDeps]:
            marker = request.node.get_closest_marker("webhooks") if per_test else None
            settings = app_settings.model_copy(update=marker.kwargs) if marker else app_settings
            async with worker_deps(settings) as d:
                yield d

        async def worker(
            temporal_env: WorkflowEnvironment, deps: WorkerDeps, queue: str
        ) -> AsyncIterator[str]:
            if stack.worker is None:
                pytest.fail(f"the {stack.name} tests' stack has no worker (Stack.worker)")
            async with serving(temporal_env.client, deps, queue):
                yield queue

        async def worker_per_test(
            app: FastAPI, temporal_env: WorkflowEnvironment, deps: WorkerDeps, queue: str
        ) -> AsyncIterator[str]:
            app.state.task_queue = queue
            try:
                async with serving(temporal_env.client, deps, queue):
                    yield queue
            finally:  # the app's own queue again (what a test's monkeypatch did undone too)
                app.state.task_queue = app.state.settings.task_queue

        async def app(app_settings: Settings, queue: str) -> AsyncIterator[FastAPI]:
            async with stack.running(app_settings, task_queue=queue) as started:
                yield started

        async def app_per_test(app_settings: Settings) -> AsyncIterator[FastAPI]:
            async with stack.running(app_settings) as started:  # the worker points it
                yield started

        async def app_with_worker(
            app_settings: Settings, queue: str, worker: str
        ) -> AsyncIterator[FastAPI]:
            async with stack.running(app_settings, task_queue=queue) as started:
                yield started

        serve: Callable[..., object] = worker_per_test if per_test else worker
        start: Callable[..., object] = app
        if per_test:
            start = app_per_test
        elif stack.worker == "with the app":
            start = app_with_worker
        return StackFixtures(
            pytest.fixture(app_settings, scope=self.scope, name="app_settings"),
            pytest.fixture(queue, scope=worker_scope, name="queue"),
            pytest.fixture(deps, scope=worker_scope, name="deps"),
            pytest.fixture(serve, scope=worker_scope, name="worker"),
            pytest.fixture(start, scope=self.scope, name="app"),
        )

    def running(
        self, settings: Settings, **state: Any
    ) -> contextlib.AbstractAsyncContextManager[FastAPI]:
        return running_app(self.build(settings), fresh_projects=self.fresh_projects, **state)
