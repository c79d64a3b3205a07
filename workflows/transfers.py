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

The Status search attribute is set at the start (``pending``) and at the end. A transfer still
unsettled after 15 s gets its recorded status (usually ``pending_onchain``), then every minute,
so that operators find the stuck ones: the settle step itself reports it, by returning the
recorded status instead of waiting on when asked to (``TransferRef.report_after_seconds``), and
the workflow shows it and runs the step again, which joins the settlement still going on in its
worker (or resumes it from the records in another). A transfer that settles in time has no
timer and no extra event in its history: a Ping's plus the final status. The look is for
operators only: when the status cannot be read (the database away), the step goes on waiting
for its settlement and looks again a minute later.
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.engine import EngineActivities, TransferRef
    from engine.search import STATUS
    from workflows.steps import chain_leg

_SETTLE = chain_leg("TransferNotFound")
# When a slow transfer's recorded status is shown (first after 15 s, then every minute). Not
# sooner: under a burst most transfers take several seconds, and each look costs an activity,
# a workflow task and a database read; operators call a transfer stuck after minutes.
_STATUS_REFRESH = (15.0, 60.0)


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
        wait = _STATUS_REFRESH[0]
        try:
            while True:
                ref = TransferRef(transfer_id=data.transfer_id, report_after_seconds=wait)
                step = await _SETTLE.run(EngineActivities.transfer_settle, ref)
                if not step.settling:
                    break
                # Still settling: the recorded status, for operators; then wait on.
                workflow.upsert_search_attributes([STATUS.value_set(step.status)])
                wait = _STATUS_REFRESH[1]
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


def _error_type(exc: ActivityError) -> str | None:
    return exc.cause.type if isinstance(exc.cause, ApplicationError) else None
