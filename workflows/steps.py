"""How a workflow calls one activity, written as data: a ``Step`` is the timeout of one try and
the retry policy, so every workflow calls its activities through one piece of code.

A step's values are part of the commands in running histories: change a workflow's steps only as
a versioned change of that workflow (``workflow.patched``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy

P = TypeVar("P")
R = TypeVar("R")


def backoff(
    first: timedelta,
    most: timedelta,
    attempts: int,
    *,
    factor: float = 2.0,
    final_errors: Sequence[str] | None = None,
) -> RetryPolicy:
    """Retry after ``first``, then ``factor`` times longer each time up to ``most``;
    ``attempts`` tries in all (0: no cap); ``final_errors``: error types never retried."""
    return RetryPolicy(
        initial_interval=first,
        backoff_coefficient=factor,
        maximum_interval=most,
        maximum_attempts=attempts,
        non_retryable_error_types=list(final_errors) if final_errors else None,
    )


@dataclass(frozen=True)
class Step:
    """One activity call's options: the timeout of one try, its retry policy and, for an
    activity that heartbeats, how long a silence means its worker is gone."""

    timeout: timedelta
    retry: RetryPolicy
    heartbeat: timedelta | None = None

    async def run(self, method: Callable[[Any, P], Awaitable[R]], arg: P) -> R:
        return await workflow.execute_activity_method(
            method,
            arg,
            start_to_close_timeout=self.timeout,
            retry_policy=self.retry,
            heartbeat_timeout=self.heartbeat,
        )

    async def run_local(
        self,
        method: Callable[[Any, P], Awaitable[R]],
        arg: P,
        *,
        retry_in_task: timedelta = timedelta(seconds=10),
    ) -> R:
        """As a local activity: it runs inside the workflow's task, so it costs no activity
        task and no extra workflow task (it cannot heartbeat; a dead worker's task times out and
        the next worker replays). Retries later than ``retry_in_task`` wait on a durable timer."""
        return await workflow.execute_local_activity_method(
            method,
            arg,
            start_to_close_timeout=self.timeout,
            retry_policy=self.retry,
            local_retry_threshold=retry_in_task,
        )
