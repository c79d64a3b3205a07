"""Operators' logs: JSON lines that say which request, workflow and chain write they are about;
HTTP clients' per-call chatter only at DEBUG; an idle worker that stays quiet."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from solders.keypair import Keypair
from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio import activity
from temporalio.common import SearchAttributeKey
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment

from core.config import Settings
from core.embedded import free_port, temporal_cli
from core.logging import bound, configure_logging, request_id_var
from db.models.tokens import CustodyWatch
from tests.conftest import SEARCH_ATTRIBUTES
from tests.stack import ROOT, worker_env

# How long the idle worker is watched, and the deposit watcher's interval meanwhile (it calls
# the chain for every custody account at each run: the calls that filled the log before).
IDLE_SECONDS = 15.0
SCAN_SECONDS = 1.0


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    out = io.StringIO()
    configure_logging("INFO", json_lines=True)
    root.handlers[0].setStream(out)  # type: ignore[attr-defined]
    try:
        yield out
    finally:
        handlers, level = saved
        configure_logging(logging.getLevelName(level), json_lines=True)
        root.handlers[:] = handlers


def _lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines() if line]


async def test_a_line_carries_the_request_workflow_and_op_key(captured: io.StringIO) -> None:
    log = logging.getLogger("mccgw.test")
    token = request_id_var.set("req-1")
    try:
        with bound(op_key="mining-shared:abc"):
            log.info("sent")
    finally:
        request_id_var.reset(token)

    @activity.defn(name="probe")
    async def probe() -> None:
        log.info("inside", extra={"op_key": "transfer:t1"})

    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, workflow_id="wf-7", activity_type="probe")
    await env.run(probe)
    sent, inside = _lines(captured)
    assert sent["request_id"] == "req-1" and sent["op_key"] == "mining-shared:abc"
    assert sent["msg"] == "sent" and sent["level"] == "info"
    assert inside["workflow_id"] == "wf-7" and inside["activity"] == "probe"
    assert inside["op_key"] == "transfer:t1" and "request_id" not in inside


def test_http_client_calls_are_debug_lines(captured: io.StringIO) -> None:
    for name in ("httpx", "httpx2", "httpcore"):
        logging.getLogger(name).info('HTTP Request: POST http://rpc "HTTP/1.1 200 OK"')
    logging.getLogger("httpx2").warning("a real problem")
    assert [(line["logger"], line["level"]) for line in _lines(captured)] == [("httpx2", "warning")]
    configure_logging("DEBUG", json_lines=True)
    logging.getLogger().handlers[0].setStream(captured)  # type: ignore[attr-defined]
    logging.getLogger("httpx2").info("HTTP Request: POST again")
    assert _lines(captured)[-1]["level"] == "debug"


async def test_an_idle_worker_log_stays_quiet(
    worker_settings: Settings, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    """A worker with nothing to do but its schedules (the deposit watcher every second here,
    reading a watched custody account's history from the chain at each run; the recovery
    sweep) writes nothing after its start-up lines: before, every JSON-RPC call of the watcher
    was an INFO line (116 KB in ten idle minutes)."""
    watched = CustodyWatch(
        address=str(Keypair().pubkey()), user_uid=f"idle-{uuid.uuid4().hex[:8]}", currency="MCC",
        ready=True,
    )  # fmt: skip
    async with session_maker() as s:
        s.add(watched)
        await s.commit()
    # A Temporal server of its own: the schedules this worker creates run on its queue.
    temporal = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        port=free_port(),
        search_attributes=[SearchAttributeKey.for_keyword(n) for n in SEARCH_ATTRIBUTES],
    )
    address = temporal.client.service_client.config.target_host
    settings = worker_settings.model_copy(update={"temporal_address": address})
    env = worker_env(
        settings, LOG_JSON="true", LOG_LEVEL="INFO", DEPOSIT_SCAN_SECONDS=str(SCAN_SECONDS)
    )
    queue = f"idle-{uuid.uuid4().hex[:8]}"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "worker", "--task-queue", queue, cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    try:
        ready = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert ready.startswith(b"worker polling"), ready
        await asyncio.sleep(1.0)  # the start-up lines already written
        start = len(await _drain(proc.stderr, 0.5))
        scans_before = await _deposit_scans(temporal, queue)
        idle = await _drain(proc.stderr, IDLE_SECONDS)
        scans = await _deposit_scans(temporal, queue) - scans_before
    finally:
        proc.terminate()
        await proc.wait()
        await temporal.shutdown()
        async with session_maker() as s:
            await s.execute(delete(CustodyWatch).where(CustodyWatch.address == watched.address))
            await s.commit()
    assert scans >= IDLE_SECONDS / SCAN_SECONDS / 3, f"the watcher ran {scans} times"
    assert not idle, f"{len(idle)} lines while idle (after {start} at start): {idle[:3]}"


async def _drain(stream: asyncio.StreamReader, seconds: float) -> list[bytes]:
    lines: list[bytes] = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = await asyncio.wait_for(stream.readline(), left)
        except TimeoutError:
            break
        if not line:
            break
        lines.append(line)
    return lines


async def _deposit_scans(temporal: WorkflowEnvironment, queue: str) -> int:
    query = f'WorkflowType="DepositScanWorkflow" AND TaskQueue="{queue}"'
    return (await temporal.client.count_workflows(query)).count
