"""A worker in its own process, for crash tests: ``python -m tests.engine.worker_proc QUEUE``.
Settings come from the environment; it prints "ready" once polling."""

from __future__ import annotations

import asyncio
import sys

from temporalio.client import Client

from core.config import Settings
from worker import build_worker, worker_deps


async def main(queue: str) -> None:
    settings = Settings()
    client = await Client.connect(settings.temporal_address)
    async with worker_deps(settings) as deps, build_worker(client, deps, task_queue=queue):
        print("ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
