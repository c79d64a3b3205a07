"""How a workflow calls one activity, written as data: a ``Step`` is the timeout of one try and
the retry policy, so every workflow calls its activities through one piece of code.

Replay checks the commands a workflow makes, in order, and for an activity its type and id, not
its options: a step's timeout, retry policy or heartbeat timeout may change without
``workflow.patched`` (an activity already scheduled keeps the options it was scheduled with).
Adding, removing, reordering or renaming an activity call, or switching between ``run`` and
``run_local``, changes the commands and does need it (tests/workflows/test_replay.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeAlias, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy

P = TypeVar("P")
R = TypeVar("R")

# What a step calls: an activity method of an activities class (``EngineActivities.reconcile``)
# or an activity function (``activities.system.echo``); either takes one dataclass input.
Activity: TypeAlias = Callable[[Any, P], Awaitable[R]] | Callable[[P], Awaitable[R]]


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

    async def run(self, activity: Activity[P, R], arg: P) -> R:
        return await self.start(activity, arg)

    def start(self, activity: Activity[P, R], arg: P) -> workflow.ActivityHandle[R]:
        """Schedule the activity and return its handle at once, for a workflow that does
        something else while it runs (``await`` the handle for the result)."""
        # The SDK's overloads take a method or a function, not either: both run the same way.
        fn: Callable[..., Any] = activity
        return workflow.start_activity_method(
            fn,
            arg,
            start_to_close_timeout=self.timeout,
            retry_policy=self.retry,
            heartbeat_timeout=self.heartbeat,
        )

    async def run_local(
        self,
        activity: Activity[P, R],
        arg: P,
        *,
        retry_in_task: timedelta = timedelta(seconds=10),
    ) -> R:
        """As a local activity: it runs inside the workflow's task, so it costs no activity
        task and no extra workflow task (it cannot heartbeat; a dead worker's task times out and
        the next worker replays). Retries later than ``retry_in_task`` wait on a durable timer."""
        fn: Callable[..., Any] = activity
        return await workflow.execute_local_activity_method(
            fn,
            arg,
            start_to_close_timeout=self.timeout,
            retry_policy=self.retry,
            local_retry_threshold=retry_in_task,
        )


def chain_leg(not_found: str) -> Step:
    """A chain write's activity (a transfer's settle, a withdrawal's send): usually about a
    second; a try that outlives 120 s (an RPC outage) is retried, resuming from the records, for
    as long as it takes (operators see it as stuck). It heartbeats every 2 s
    (activities/heartbeat.py): a try silent for 15 s died with its worker and is retried
    elsewhere. Final: the resource is gone (``not_found``), or the chain holds another write
    under its key or a receipt that does not match."""
    return Step(
        timedelta(seconds=120),
        backoff(
            timedelta(milliseconds=500),
            timedelta(seconds=5),
            0,
            final_errors=[not_found, "ChainWriteConflict", "ReceiptMismatch"],
        ),
        heartbeat=timedelta(seconds=15),
    )
