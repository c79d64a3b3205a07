"""A long activity that ends when its worker shuts down: without this it holds the worker's stop
for the whole grace period (10 s) until the SDK cancels it. Its retry, on whichever worker polls
next, carries on from what the activity saved."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

from temporalio import activity


@contextlib.asynccontextmanager
async def at_worker_shutdown(do: Callable[[], None]) -> AsyncIterator[None]:
    """Call ``do`` (wake the activity's wait) when the worker begins to shut down, while the
    block runs."""

    async def wait() -> None:
        await activity.wait_for_worker_shutdown()
        do()

    waiter = asyncio.create_task(wait())
    try:
        yield
    finally:
        waiter.cancel()
