"""TransferWorkflow: pending -> pending_onchain -> completed | failed (or cancelled first).

One activity, ``transfer_settle``, does the chain leg: the transfer is claimed together with the
transfers that arrive with it, sent in one transaction with them (exactly once, whatever retries
or crashes happen), finalized, its receipt verified, and booked (ledger, event, audit). A cancel
that won the race ends it before anything touches the chain. One workflow per transfer keeps
each transfer visible and steerable in the Temporal UI.

It is an ordinary activity, not a local one: it lasts until finality (a second, more under load
or through an outage), and a local activity would hold the workflow's task open that long (issue
30: no workflow task may take seconds). It heartbeats, so a killed worker's try is retried on
another after 15 s of silence, resuming from the records.

The Status search attribute is set at the start (``pending``) and at the end; a transfer still
unsettled after 15 s gets its recorded status (usually ``pending_onchain``) so that
operators find the stuck ones. That look is for operators only: when it fails (the database
away), the transfer goes on waiting for its settlement, and the next look tries again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, FailureError

with workflow.unsafe.imports_passed_through():
    from activities.engine import EngineActivities, TransferRef
    from engine.search import STATUS
    from workflows.steps import Step, backoff

# The chain leg: usually about a second; a try that outlives 120 s (an RPC outage) is retried,
# resuming from the records, for as long as it takes (operators see it as stuck). It heartbeats
# every 2 s (activities/heartbeat.py): a try silent for 15 s died with its worker and is retried
# elsewhere.
_SETTLE = Step(
    timedelta(seconds=120),
    backoff(
        timedelta(milliseconds=500), timedelta(seconds=5), 0,
        final_errors=["TransferNotFound", "ChainWriteConflict", "ReceiptMismatch"],
    ),
    heartbeat=timedelta(seconds=15),
)  # fmt: skip
# The recorded status, a database read (local activity).
_STATUS = Step(timedelta(seconds=10), RetryPolicy(maximum_attempts=3))
# When to look at a slow transfer's recorded status (first after 15 s, then every minute). Not
# sooner: under a burst most transfers take several seconds, and each look costs a workflow
# task and a database read; operators call a transfer stuck after minutes, not seconds.
_STATUS_REFRESH = (timedelta(seconds=15), timedelta(seconds=60))


@dataclass
class TransferInput:
    transfer_id: str


@dataclass
class TransferResult:
    transfer_id: str
    status: str
    signature: str | None = None
    error: str | None = None


# Unsandboxed: this module imports only temporalio and pass-through modules and its code does no
# I/O, clock or randomness of its own; the sandbox's per-run instance cost about a tenth of the
# worker's CPU under load, and this is the engine's one workflow per transfer.
@workflow.defn(sandboxed=False)
class TransferWorkflow:
    @workflow.run
    async def run(self, data: TransferInput) -> TransferResult:
        ref = TransferRef(transfer_id=data.transfer_id)
        settle = _SETTLE.start(EngineActivities.transfer_settle, ref)
        wait = _STATUS_REFRESH[0]
        while not settle.done():
            try:
                await workflow.wait_condition(settle.done, timeout=wait)
            except TimeoutError:
                await self._show_recorded_status(ref)
                wait = _STATUS_REFRESH[1]
        try:
            step = await settle
        except ActivityError as exc:
            if _error_type(exc) == "TransferNotFound":
                # Nothing was ever committed under this id; ending as failed lets a retry of
                # the same request start this workflow id again.
                workflow.upsert_search_attributes([STATUS.value_set("abandoned")])
                raise ApplicationError(
                    f"transfer {data.transfer_id} was never committed", non_retryable=True
                ) from exc
            raise  # ChainWriteConflict / ReceiptMismatch: for an operator, visibly
        workflow.upsert_search_attributes([STATUS.value_set(step.status)])
        return TransferResult(
            data.transfer_id, step.status, signature=step.signature, error=step.error
        )

    async def _show_recorded_status(self, ref: TransferRef) -> None:
        try:
            recorded = await _STATUS.run_local(EngineActivities.transfer_status, ref)
        except FailureError as exc:  # not the transfer's failure: the next look tries again
            # (a local activity's failure arrives as its own error, not as an ActivityError)
            workflow.logger.warning("transfer status not read: %s", exc)
            return
        workflow.upsert_search_attributes([STATUS.value_set(recorded.status)])


def _error_type(exc: ActivityError) -> str | None:
    return exc.cause.type if isinstance(exc.cause, ApplicationError) else None
