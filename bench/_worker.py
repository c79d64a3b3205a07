"""The stack pieces the engine and pump benches share: a Temporal dev server with the
project's search attributes, the real worker in a process of its own (as in production), and
the PingWorkflow reference rate on that worker."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio.client import Client
from temporalio.common import SearchAttributeKey
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps
from core.config import Settings
from core.embedded import free_port, temporal_cli
from tests.stack import worker_env
from worker import build_worker
from workflows.reference import PingInput, PingWorkflow

SEARCH_ATTRIBUTES = ["ProjectId", "UserUid", "Operation", "Status", "Currency"]


@asynccontextmanager
async def temporal() -> AsyncIterator[WorkflowEnvironment]:
    """TEMPORAL_ADDRESS when set, else a local dev server (stopped afterwards)."""
    if address := os.environ.get("TEMPORAL_ADDRESS"):
        yield WorkflowEnvironment.from_client(await Client.connect(address))
        return
    keys = [SearchAttributeKey.for_keyword(n) for n in SEARCH_ATTRIBUTES]
    path = temporal_cli()
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=path, port=free_port(), search_attributes=keys
    ) as env:
        yield env


@asynccontextmanager
async def worker(
    settings: Settings,
    queue: str,
    client: Client,
    deps: WorkerDeps | None = None,
    *,
    schedules: bool = True,
    **env: str,
) -> AsyncIterator[int | None]:
    """The worker under test (yields its pid): its own process by default (the production
    topology, so the driver's CPU is not the worker's), or in this process when ``deps`` is
    given (yields None). ``schedules=False``: it creates none (``--no-schedules``); ``env``:
    more settings of its environment."""
    if deps is not None:
        async with build_worker(client, deps, task_queue=queue):
            yield None
        return
    environment = worker_env(settings, **{"LOG_LEVEL": "WARNING", **env})
    echo: asyncio.Task[None] | None = None
    flags = () if schedules else ("--no-schedules",)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "worker", "--task-queue", queue, *flags,
        env=environment, stdout=asyncio.subprocess.PIPE, stderr=None,  # its warnings show here
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        if not line.startswith(b"worker polling"):
            raise RuntimeError(f"the worker did not start: {line!r}")
        # Keep reading its output (its log lines): an undrained pipe would block the worker.
        echo = asyncio.create_task(_echo(proc.stdout))
        yield proc.pid
    finally:
        proc.terminate()
        await proc.wait()
        if echo is not None:
            await echo


async def _echo(stream: asyncio.StreamReader) -> None:
    async for line in stream:
        sys.stderr.write(f"worker: {line.decode(errors='replace')}")


async def ping_rate(
    client: Client,
    queue: str,
    n: int,
    concurrency: int = 32,
    warmup: int = 20,
    tag: str | None = None,
) -> float:
    """PingWorkflow executions per second (one activity, no I/O), ``concurrency`` in flight,
    after ``warmup`` runs that are not timed; run ``i``'s id is
    ``bench-ping-<queue>-<tag>-<i>``."""
    sem = asyncio.Semaphore(concurrency)
    tag = tag or uuid.uuid4().hex[:6]

    async def ping(i: int) -> None:
        async with sem:
            await client.execute_workflow(
                PingWorkflow.run, PingInput(message=str(i)),
                id=f"bench-ping-{queue}-{tag}-{i}", task_queue=queue,
            )  # fmt: skip

    await asyncio.gather(*(ping(-i - 1) for i in range(warmup)))
    started = time.perf_counter()
    await asyncio.gather(*(ping(i) for i in range(n)))
    return n / (time.perf_counter() - started)
