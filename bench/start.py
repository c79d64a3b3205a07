"""What one workflow start costs the process that makes it (the API's), three ways, in turn:

- ``sdk``: ``client.start_workflow(PingWorkflow.run, ...)``, as the accept floor starts its Ping;
- ``sdk + attributes``: the same with the five keyword search attributes a transfer carries
  (``engine.search.attributes``);
- ``raw``: ``client.workflow_service.start_workflow_execution`` with a request built once and
  copied per start (its id and request id changed), the SDK's data conversion, interceptors
  and search-attribute encoding skipped: what proposal 20 could reach at most.

CPU is this process's (every thread: the SDK's Rust core runs in it), per start, ``--flight``
starts in flight as the accept bench makes them; the median of ``--rounds`` rounds, the three
ways in turn in each. No worker: the workflows stay scheduled on a Temporal dev server of the
bench's own.

    .venv/bin/python -m bench.start [--n 300] [--rounds 5] [--flight 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from temporalio.api.common.v1 import WorkflowType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import StartWorkflowExecutionRequest
from temporalio.client import Client
from temporalio.common import TypedSearchAttributes

from bench._report import record
from core.embedded import free_port, start_temporal, wait_for_port
from engine.search import attributes
from workflows.reference import PingInput, PingWorkflow

QUEUE = "bench-start"


async def _in_flight(n: int, flight: int, one: Callable[[int], Awaitable[None]]) -> float:
    """CPU ms of this process per call, ``n`` calls, ``flight`` at a time."""
    sem = asyncio.Semaphore(flight)

    async def call(i: int) -> None:
        async with sem:
            await one(i)

    began = time.process_time()
    await asyncio.gather(*(call(i) for i in range(n)))
    return (time.process_time() - began) * 1000 / n


async def measure(client: Client, args: argparse.Namespace) -> dict[str, float]:
    tag = uuid.uuid4().hex[:8]
    sa = attributes(
        project_id=1, user_uid="u_bench", operation="transfer", status="pending", currency="MCC"
    )

    async def sdk(i: int, search: TypedSearchAttributes | None = None) -> None:
        await client.start_workflow(
            PingWorkflow.run, PingInput(message=f"{tag}-{i}"), id=f"bench-start-{uuid.uuid4()}",
            task_queue=QUEUE, search_attributes=search,
        )  # fmt: skip

    # The raw request as the SDK builds it (namespace, type, queue, input payload, identity),
    # built once; each start copies it with its own workflow id and request id.
    payload = (await client.data_converter.encode([PingInput(message=tag)]))[0]
    template = StartWorkflowExecutionRequest(
        namespace=client.namespace,
        workflow_type=WorkflowType(name="PingWorkflow"),
        task_queue=TaskQueue(name=QUEUE),
        identity=client.identity,
    )
    template.input.payloads.append(payload)

    async def raw(_: int) -> None:
        req = StartWorkflowExecutionRequest()
        req.CopyFrom(template)
        req.workflow_id = f"bench-start-{uuid.uuid4()}"
        req.request_id = str(uuid.uuid4())
        await client.workflow_service.start_workflow_execution(req, retry=True)

    async def with_attributes(i: int) -> None:
        await sdk(i, sa)

    ways: dict[str, Callable[[int], Awaitable[None]]] = {
        "sdk": sdk, "sdk + attributes": with_attributes, "raw": raw,
    }  # fmt: skip
    for one in ways.values():  # warm-up of each path
        await _in_flight(20, args.flight, one)
    runs: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, one in ways.items():
            runs[name].append(await _in_flight(args.n, args.flight, one))
    for name, got in runs.items():
        print(f"  {name}: " + ", ".join(f"{c:.3f}" for c in got) + " ms", flush=True)
    return {name: statistics.median(got) for name, got in runs.items()}


async def amain(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = start_temporal(Path(tmp) / "temporal.db", port, None)
        try:
            wait_for_port("127.0.0.1", port, 120, server)
            for attempt in range(60):  # the port opens before the namespace is ready
                try:
                    client = await Client.connect(f"127.0.0.1:{port}")
                    await client.count_workflows()
                    break
                except Exception:
                    if attempt == 59:
                        raise
                    await asyncio.sleep(0.5)
            one, five, _ = os.getloadavg()
            print(f"load average {one:.2f} (5 min {five:.2f}); {args.n} starts x {args.rounds} "
                  f"rounds, {args.flight} in flight")  # fmt: skip
            figures = await measure(client, args)
        finally:
            server.terminate()
            server.wait(30)
    sdk = figures["sdk"]
    print("CPU ms per start (median of the rounds), and beside the SDK's plain start:")
    for name, ms in figures.items():
        print(f"  {name:<18}{ms:>8.3f} ms   {ms / sdk:>5.2f}")
    record("start", figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="starts per way per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--flight", type=int, default=8, help="starts in flight")
    asyncio.run(amain(parser.parse_args()))


if __name__ == "__main__":
    main()
