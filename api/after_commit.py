"""Work that follows a request's commit but need not hold up its answer.

A transfer is durable once its row commits; starting its workflow is a Temporal round trip the
client should not wait for. The start runs right after the answer, in this process; if the
process dies first, the recovery sweep (engine.recovery) starts the workflow by its derived id,
so nothing is lost either way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from fastapi import Request

log = logging.getLogger("mccgw.api.after_commit")


class AfterCommit:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def run_soon(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        task = asyncio.create_task(work, name=what)
        self._tasks.add(task)  # a strong reference until it is done
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.warning("%s failed (the recovery sweep will redo it): %r", task.get_name(), exc)

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """At shutdown: let the outstanding starts finish (bounded)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)


def after_commit(request: Request) -> AfterCommit:
    after: AfterCommit = request.app.state.after_commit
    return after
