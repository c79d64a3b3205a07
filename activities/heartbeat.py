"""Heartbeats for activities that may run for seconds: a worker killed during one is noticed
after the workflow's heartbeat timeout (seconds), not after the activity's whole timeout
(minutes), and its try is retried on another worker."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from temporalio import activity

P = ParamSpec("P")
R = TypeVar("R")

# Well inside the heartbeat timeouts the workflows give (10 s, 15 s for a transfer). Temporal's
# core sends a heartbeat to the server at most every 0.8 of the timeout (8 s) anyway, the latest
# one given meanwhile: beating every 4 s (was 2) changes nothing the server sees, and wakes the
# worker half as often (issue 43).
EVERY_SECONDS = 4.0


async def _beat(seconds: float) -> None:
    # The first beat after ``seconds``, not at the start: the server's heartbeat timeout runs
    # from the try's start, and Temporal's core sends a first heartbeat at once, a call to the
    # server (and a write of the activity's state there) that a transfer settled within a
    # second (most) never needed (issue 43 pass four).
    while True:
        await asyncio.sleep(seconds)
        activity.heartbeat()


def heartbeating(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Heartbeat every ``EVERY_SECONDS`` while the activity runs (place it below
    ``@activity.defn``)."""

    @functools.wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        beat = asyncio.create_task(_beat(EVERY_SECONDS))
        try:
            return await fn(*args, **kwargs)
        finally:
            beat.cancel()

    return run
