"""FundLockWorkflow: the durable expiry timer of one fund lock.

The API reserves the hold before answering; this workflow only waits. It ends early when the
lock is unlocked or settled (signal ``resolved``), otherwise at ``expires_at`` it releases the
hold (``engine.lock_expire``: a no-op if someone else resolved it first).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.engine import EngineActivities, LockRef
    from engine.search import STATUS
    from workflows.steps import Step, backoff

# A short database step (a local activity); retried until it goes through: an expired lock must
# be released.
_EXPIRE = Step(
    timedelta(seconds=10), backoff(timedelta(milliseconds=200), timedelta(seconds=20), 0)
)


@dataclass
class FundLockInput:
    lock_id: str
    expires_at: str  # ISO 8601 with offset


@dataclass
class FundLockResult:
    status: str  # expired | unlocked | settled | already-resolved


@workflow.defn
class FundLockWorkflow:
    def __init__(self) -> None:
        self._resolution: str | None = None

    @workflow.signal
    def resolved(self, resolution: str) -> None:
        """The lock was unlocked or settled elsewhere: stop waiting."""
        self._resolution = resolution

    @workflow.run
    async def run(self, data: FundLockInput) -> FundLockResult:
        remaining = (datetime.fromisoformat(data.expires_at) - workflow.now()).total_seconds()
        if remaining > 0:
            with contextlib.suppress(TimeoutError):
                await workflow.wait_condition(
                    lambda: self._resolution is not None, timeout=timedelta(seconds=remaining)
                )
        if self._resolution is not None:
            workflow.upsert_search_attributes([STATUS.value_set(self._resolution)])
            return FundLockResult(status=self._resolution)
        outcome = await _EXPIRE.run_local(EngineActivities.lock_expire, LockRef(data.lock_id))
        workflow.upsert_search_attributes([STATUS.value_set(outcome.status)])
        return FundLockResult(status=outcome.status)
