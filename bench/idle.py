"""An idle worker's CPU, beside a bare worker's over the same window (issue 33, aim 4).

Starts PostgreSQL, Redis, a Temporal dev server and the local chain node (400 ms slots, as
``mccgw dev`` runs it), then two workers, each in a process of its own:

- the real worker (``python -m worker``): its schedules (the deposit watcher, recovery, the
  oracle's sampler...) and the webhook pump, as in production, with nothing to do;
- the reference: a bare worker on another task queue with only ``PingWorkflow`` and its
  activity registered (the Temporal SDK's own long polls: the floor of any worker).

After a warm-up (the schedules have fired, the pump runs), both processes' own CPU counters
are read over one window; the figure is CPU ms per second of wall time. The rest of the
stack's CPU over the window is printed too (Temporal, PostgreSQL, Redis, the node).

    .venv/bin/python -m bench.idle [--warmup 15] [--seconds 30] [--profile FILE]

A window that holds a whole cycle of the schedules (``--warmup 95 --seconds 90``, as
``make bench`` runs it) is the figure to compare across schedule changes: a short one depends
on where the runs' starts and ends fall in it. The workflow runs that closed in the window are
counted by type (Temporal's visibility list) and printed beside the figure: the custody
reconciliation (every 5 minutes) falls in a 90 s window about one run in three and adds a
run's CPU when it does, so two figures compare only with the same runs in their windows.
``--reconcile`` starts one (its schedule triggered as the window opens) to put it in every
window.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import uvloop
from sqlalchemy import make_url
from temporalio.client import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._procs import cpu_between, cpu_sample
from bench._report import record
from bench._worker import temporal, worker
from bench.webhooks_pump import profile
from core.config import Settings
from core.embedded import free_port
from tests.services import fresh_database, redis_server
from tests.stack import worker_env

ROOT = Path(__file__).resolve().parent.parent
RECONCILE = "ReconcileWorkflow"


async def closed_runs(client: Client, queue: str, start: datetime, end: datetime) -> Counter[str]:
    """The workflow runs of ``queue`` that closed in [start, end], by type (visibility list)."""
    query = (
        f"TaskQueue = '{queue}' AND CloseTime >= '{start.isoformat()}' "
        f"AND CloseTime <= '{end.isoformat()}'"
    )
    runs: Counter[str] = Counter()
    async for run in client.list_workflows(query):
        runs[run.workflow_type] += 1
    return runs


def own_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` itself."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def bare_worker(settings: Settings, queue: str) -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.idle", "--bare-worker", queue,
        cwd=ROOT, env=worker_env(settings, LOG_LEVEL="WARNING"),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    if not line.startswith(b"bare worker polling"):
        raise RuntimeError(f"the bare worker did not start: {line!r}")
    return proc


async def run_bare_worker(queue: str) -> None:
    """The reference worker: PingWorkflow and its activity only, until SIGTERM."""
    import signal

    from temporalio.client import Client
    from temporalio.worker import Worker

    from activities.system import echo
    from core.config import get_settings
    from workflows.reference import PingWorkflow

    settings = get_settings()
    client = await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with Worker(client, task_queue=queue, workflows=[PingWorkflow], activities=[echo]):
        print(f"bare worker polling {queue}", flush=True)
        await stop.wait()


async def bench(args: argparse.Namespace, settings: Settings, node_pid: int) -> None:
    async with temporal() as env:
        address = env.client.service_client.config.target_host
        settings = settings.model_copy(update={"temporal_address": address})
        queue = f"bench-idle-{uuid.uuid4().hex[:6]}"
        bare = await bare_worker(settings, f"{queue}-bare")
        try:
            async with worker(settings, queue, env.client, schedules=args.schedules) as pid:
                assert pid is not None
                # The deposit watcher's schedule started its first run when the worker created
                # it (workflows.schedules): its follower runs through the window whatever the
                # phase of the interval's boundaries.
                await asyncio.sleep(args.warmup)
                db_name = str(make_url(settings.database_url).database)
                stack_before = cpu_sample(pid, node_pid, db_name)
                before = (own_cpu(pid), own_cpu(bare.pid), time.monotonic())
                opened = datetime.now(UTC)
                if args.reconcile:
                    from workflows.reconcile import RECONCILE_SCHEDULE_ID

                    await env.client.get_schedule_handle(RECONCILE_SCHEDULE_ID).trigger()
                spy = profile(pid, args.profile, args.seconds)
                await asyncio.sleep(args.seconds)
                if spy is not None:
                    spy.wait(30)
                after = (own_cpu(pid), own_cpu(bare.pid), time.monotonic())
                closed = datetime.now(UTC)
                stack = cpu_between(stack_before, cpu_sample(pid, node_pid, db_name))
                await asyncio.sleep(1)  # the visibility store is written just after a close
                runs = await closed_runs(env.client, queue, opened, closed)
        finally:
            bare.terminate()
            await bare.wait()
    wall = after[2] - before[2]
    real = (after[0] - before[0]) * 1000 / wall
    ref = (after[1] - before[1]) * 1000 / wall
    one, five, _ = os.getloadavg()
    print(f"idle workers over {wall:.1f} s after a {args.warmup:g} s warm-up "
          f"(load average {one:.2f}, 5 min {five:.2f}, {os.cpu_count()} CPUs)")  # fmt: skip
    print(f"  worker (schedules, webhook pump, deposit watcher): {real:6.2f} CPU ms/s")
    print(f"  bare worker (PingWorkflow only, reference):        {ref:6.2f} CPU ms/s")
    rest = "  ".join(f"{k} {v * 1000 / wall:.2f}" for k, v in stack.items() if k != "API + driver")
    print(f"  the stack meanwhile, CPU ms/s: {rest}")
    # Not "aim ...:": make bench's summary prints the one line of that form a tool reads.
    listed = ", ".join(f"{k} {v}" for k, v in sorted(runs.items())) or "none"
    print(f"  workflow runs closed in the window: {listed}")
    reconciled = runs[RECONCILE] > 0
    print(
        f"idle worker CPU ms/s: {real:.2f}   (aim <= 5; bare worker {ref:.2f}; "
        f"reconciliation in the window: {'yes' if reconciled else 'no'})"
    )
    record(
        "idle",
        {
            "worker_cpu_ms_s": real,
            "bare_worker_cpu_ms_s": ref,
            "stack_cpu_ms_s": {k: v * 1000 / wall for k, v in stack.items()},
            "window_s": wall,
            "runs_closed": dict(sorted(runs.items())),
            "reconciliation_in_window": reconciled,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--profile", type=Path, help="py-spy raw profile of the worker")
    parser.add_argument(
        "--no-schedules", dest="schedules", action="store_false",
        help="the worker creates no schedules (its webhook pump alone: the floor under them)",
    )  # fmt: skip
    parser.add_argument(
        "--reconcile", action="store_true",
        help="trigger the custody reconciliation's schedule as the window opens (one in it)",
    )  # fmt: skip
    parser.add_argument("--bare-worker", metavar="QUEUE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_worker:
        uvloop.run(run_bare_worker(args.bare_worker))
        return
    from devchain.node.process import start_node

    with tempfile.TemporaryDirectory(prefix="mccgw-bench-idle-") as tmp:
        os.chmod(tmp, 0o755)
        node = start_node(Path(tmp) / "chain", Path(tmp) / "keys", free_port(), 400)
        try:
            with fresh_database(Path(tmp)) as db_url, redis_server(Path(tmp)) as redis_url:
                settings = Settings(
                    environment="test", database_url=db_url, redis_url=redis_url,
                    solana_rpc_url=node.url, chain_keys_dir=Path(tmp) / "keys",
                    log_json=False, log_level="WARNING",
                )  # fmt: skip
                # the warm-up and the window, and room for the stack's start and the py-spy wait
                limit = args.warmup + args.seconds + 110
                uvloop.run(asyncio.wait_for(bench(args, settings, node.process.pid), limit))
        finally:
            node.stop()


if __name__ == "__main__":
    main()
