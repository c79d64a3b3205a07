"""One LISTEN connection per process (db/notify.py): the API and a worker, each started as the
process it is in production, each hold exactly one connection in LISTEN, the worker while its
webhook pump and its deposit watcher both listen on it."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from core.embedded import free_port
from core.workflow_ids import pump_workflow_id
from tests.stack import ROOT, new_queue, worker_env
from workflows.tokens import DepositScanInput, DepositScanWorkflow

# Each process's connections carry its own name (libpq's PGAPPNAME), so its rows in
# pg_stat_activity can be told apart from every other process's.
_LISTENING = text(
    "SELECT application_name, query FROM pg_stat_activity "
    "WHERE application_name = ANY(:names) AND query ILIKE 'LISTEN%'"
)


@asynccontextmanager
async def _process(
    settings: Settings, name: str, *args: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    env = worker_env(settings, PGAPPNAME=name, LOG_JSON="false", LOG_LEVEL="WARNING")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *args, cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def _listening(
    maker: async_sessionmaker[AsyncSession], names: list[str]
) -> dict[str, list[str]]:
    """Each named process's LISTEN connections, by the statement each last ran."""
    async with maker() as session:
        rows = (await session.execute(_LISTENING, {"names": names})).all()
    found: dict[str, list[str]] = {name: [] for name in names}
    for name, query in rows:
        found[name].append(query)
    return found


def _channels(queries: list[str]) -> set[str]:
    return {c.lower() for q in queries for c in re.findall(r"LISTEN\s+(\w+)", q, re.IGNORECASE)}


async def test_the_api_and_a_worker_each_hold_one_listen_connection(
    stack_settings: Settings,
    temporal_env: WorkflowEnvironment,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    tag = uuid.uuid4().hex[:8]
    api, worker = f"mccgw-test-api-{tag}", f"mccgw-test-worker-{tag}"
    queue = new_queue("one-listen")
    client = temporal_env.client
    port = str(free_port())
    uvicorn = ("-m", "uvicorn", "api.main:app", "--host", "127.0.0.1", "--port", port)
    scan = None
    try:
        async with (
            _process(stack_settings, api, *uvicorn),
            _process(stack_settings, worker, "-m", "worker", "--task-queue", queue),
        ):
            # The worker starts its webhook pump itself; its deposit watcher follows the chain
            # while a scan runs.
            scan = await client.start_workflow(
                DepositScanWorkflow.run,
                DepositScanInput(note="one listen", follow_seconds=90.0),
                id=f"one-listen-scan-{tag}",
                task_queue=queue,
            )
            wanted = {api: {"mccgw_cache"}, worker: {"mccgw_webhooks", "mccgw_deposits"}}
            found: dict[str, list[str]] = {}
            async with asyncio.timeout(90):
                while not all(wanted[n] <= _channels(found.get(n, [])) for n in wanted):
                    await asyncio.sleep(0.2)
                    found = await _listening(session_maker, [api, worker])
            await asyncio.sleep(1.0)  # nothing else opens a LISTEN connection later
            found = await _listening(session_maker, [api, worker])
            assert {n: len(q) for n, q in found.items()} == {api: 1, worker: 1}, found
            assert wanted[worker] <= _channels(found[worker])
    finally:
        if scan is not None:
            with contextlib.suppress(Exception):
                await scan.terminate()
        with contextlib.suppress(Exception):
            await client.get_workflow_handle(pump_workflow_id(queue)).terminate()
