"""WithdrawalWorkflow: a user's withdrawal from its hold to its final state.

    look -> (waits: approvals, the wallet's cooling-off, the breaker) -> send -> final

The API accepts the withdrawal (its hold on the ledger, its waits recorded) and starts this
workflow after the commit. The record is the truth: each ``look`` (a local activity) reads
what the withdrawal still waits for. While it waits, the workflow sleeps until the signal
``changed`` (an administrator's approval or refusal, a cancel, the breaker's reset: whoever
changed the record tells it after their commit) or until something changes by itself (the
cooling-off ends, or the deadline passes: the next look then cancels it and releases the hold).
With nothing left to wait for, ``send`` (a heartbeating activity) claims it for its chain write
(no cancel after that), writes exactly once through the gateway, waits for finality and books
it: the ledger debited and the hold released in one transaction.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.withdrawals import WithdrawalActivities, WithdrawalLook, WithdrawalRef
    from engine.search import STATUS
    from workflows.steps import Step, backoff, chain_leg

# A database step (local activity), retried until it goes through (the chain's decimals may not
# be read yet after a start, the database may be restarting).
_LOOK = Step(timedelta(seconds=10), backoff(timedelta(milliseconds=200), timedelta(seconds=10), 0))
_SEND = chain_leg("WithdrawalNotFound")
# Looks before the history is handed to a fresh run (continue-as-new); the waits are few.
_MAX_LOOKS = 40
# A timer may fire a little early against the worker's clock: look again a second later.
_MARGIN = timedelta(seconds=1)
# The longest sleep between looks: a signal that was lost (the API died after its commit) costs
# at most this much delay.
_LONGEST_SLEEP = timedelta(hours=1)


@dataclass
class WithdrawalInput:
    withdrawal_id: str


@dataclass
class WithdrawalResult:
    withdrawal_id: str
    status: str
    signature: str | None = None
    error: str | None = None


@workflow.defn
class WithdrawalWorkflow:
    def __init__(self) -> None:
        self._changes = 0

    @workflow.signal
    def changed(self, what: str) -> None:
        """The record changed (``approved``, ``rejected``, ``cancelled``, ``released``): look."""
        self._changes += 1

    @workflow.run
    async def run(self, data: WithdrawalInput) -> WithdrawalResult:
        ref = WithdrawalRef(data.withdrawal_id)
        for _ in range(_MAX_LOOKS):
            seen = self._changes
            found: WithdrawalLook = await _LOOK.run_local(WithdrawalActivities.look, ref)
            if found.status == "missing":
                workflow.upsert_search_attributes([STATUS.value_set("abandoned")])
                raise ApplicationError(
                    f"withdrawal {data.withdrawal_id} was never committed", non_retryable=True
                )
            if found.final:
                return self._ended(data, found.status)
            if found.ready:
                result = await self._send(ref)
                if result is not None:
                    return result
                continue
            workflow.upsert_search_attributes([STATUS.value_set("waiting")])
            wake_in = timedelta(seconds=max(found.wake_in_seconds or 0.0, 0.0)) + _MARGIN
            wait = min(wake_in, _LONGEST_SLEEP)
            with contextlib.suppress(TimeoutError):
                await workflow.wait_condition(self._changed_since(seen), timeout=wait)
        workflow.continue_as_new(data)

    def _changed_since(self, seen: int) -> Callable[[], bool]:
        return lambda: self._changes > seen

    async def _send(self, ref: WithdrawalRef) -> WithdrawalResult | None:
        workflow.upsert_search_attributes([STATUS.value_set("pending_onchain")])
        # WithdrawalNotFound / ChainWriteConflict / ReceiptMismatch end the run, visibly: for
        # an operator (the withdrawal stays pending_onchain; the console's retry restarts it).
        step = await _SEND.run(WithdrawalActivities.send, ref)
        if step.status == "pending":  # still waits after all: look again
            return None
        workflow.upsert_search_attributes([STATUS.value_set(step.status)])
        return WithdrawalResult(ref.withdrawal_id, step.status, step.signature, step.error)

    def _ended(self, data: WithdrawalInput, status: str) -> WithdrawalResult:
        workflow.upsert_search_attributes([STATUS.value_set(status)])
        return WithdrawalResult(data.withdrawal_id, status)
