"""The real app and a real worker, started for tests: the one way every test package builds
them (tests/conftest.py holds the shared fixtures; a package conftest keeps only what is its
own: a scope, a task queue, a settings override)."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from temporalio.client import Client

from activities.deps import worker_deps
from api.app import create_app
from core.config import Settings
from worker import build_worker
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
async def running_worker(client: Client, settings: Settings, queue: str) -> AsyncIterator[str]:
    """The real worker (every workflow and activity) polling ``queue``."""
    async with worker_deps(settings) as deps, build_worker(client, deps, task_queue=queue):
        yield queue


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
