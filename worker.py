"""The Temporal worker: connects once, registers every workflow and activity, and drains
gracefully on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from activities.system import SystemActivities
from core.config import Settings, get_settings
from core.logging import configure_logging
from core.queues import MAIN_TASK_QUEUE
from workflows.reference import PingWorkflow

log = logging.getLogger("mccgw.worker")

WORKFLOWS: Sequence[type] = (PingWorkflow,)


def build_activities(settings: Settings) -> list[Callable[..., Any]]:
    """Activity objects are built once with their clients; their bound methods are registered."""
    system = SystemActivities()
    return [system.echo]


def build_worker(client: Client, settings: Settings, task_queue: str = MAIN_TASK_QUEUE) -> Worker:
    return Worker(
        client,
        task_queue=task_queue,
        workflows=list(WORKFLOWS),
        activities=build_activities(settings),
        graceful_shutdown_timeout=timedelta(seconds=10),
    )


async def run(settings: Settings) -> None:
    client = await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace)
    worker = build_worker(client, settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    log.info("worker polling", extra={"task_queue": MAIN_TASK_QUEUE})
    async with worker:
        await stop.wait()
        log.info("worker draining")
    log.info("worker stopped")


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_json)
    asyncio.run(run(settings))


if __name__ == "__main__":
    main()
