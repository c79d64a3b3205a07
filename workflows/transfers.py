"""TransferWorkflow: pending -> pending_onchain -> completed | failed (or cancelled first).

1. ``transfer_begin`` (local): the conditional move out of ``pending``; a cancel that won
   the race ends the workflow here, before anything touches the chain.
2. ``transfer_send``: custody accounts exist, the chain write (op_key from the transfer id) is
   signed, persisted, sent - exactly once whatever retries or crashes happen.
3. ``transfer_await``: finalized, and the receipt (the transaction's own token balance
   changes) verified; retried through RPC outages.
4. ``transfer_complete`` / ``transfer_fail`` (local): ledger, event and audit in one commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.engine import (
        EngineActivities,
        TransferFailure,
        TransferLanded,
        TransferRef,
    )
    from engine.search import STATUS

_DB_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=5)
)
# The API starts the workflow after its commit (or the recovery sweep does); a missing row
# means a bug or a hand-deleted record: retry a little, then give up visibly.
_BEGIN_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=100),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=5),
    maximum_attempts=10,
)
# Chain legs: retried through outages for as long as it takes (operators see them as stuck).
_CHAIN_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=500),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=5),
    non_retryable_error_types=["ChainWriteConflict", "ReceiptMismatch"],
)


@dataclass
class TransferInput:
    transfer_id: str


@dataclass
class TransferResult:
    transfer_id: str
    status: str
    signature: str | None = None
    error: str | None = None


@workflow.defn
class TransferWorkflow:
    @workflow.run
    async def run(self, data: TransferInput) -> TransferResult:
        ref = TransferRef(transfer_id=data.transfer_id)
        try:
            begun = await workflow.execute_local_activity_method(
                EngineActivities.transfer_begin,
                ref,
                start_to_close_timeout=timedelta(seconds=10),
                retry_policy=_BEGIN_RETRY,
            )
        except ActivityError as exc:
            # The request never committed (rolled back after the start): nothing to do. Ending
            # as failed lets a retry of the same request start this workflow id again.
            workflow.upsert_search_attributes([STATUS.value_set("abandoned")])
            raise ApplicationError(
                f"transfer {data.transfer_id} was never committed", non_retryable=True
            ) from exc
        if begun.status != "pending_onchain":
            return self._end(data.transfer_id, begun.status, error=begun.error)
        workflow.upsert_search_attributes([STATUS.value_set("pending_onchain")])

        sent = await workflow.execute_activity_method(
            EngineActivities.transfer_send,
            ref,
            # A send is a few RPC calls; a worker that died mid-send is retried after this.
            start_to_close_timeout=timedelta(seconds=20),
            retry_policy=_CHAIN_RETRY,
        )
        if sent.status == "failed":
            return await self._fail(data.transfer_id, f"chain rejected: {sent.error}")
        if sent.status != "sent":
            return self._end(data.transfer_id, sent.status)
        final = await workflow.execute_activity_method(
            EngineActivities.transfer_await,
            ref,
            start_to_close_timeout=timedelta(seconds=60),
            # Generous: a busy event loop must not turn a slow heartbeat into a retry storm.
            heartbeat_timeout=timedelta(seconds=15),
            retry_policy=_CHAIN_RETRY,
        )
        if final.status != "succeeded" or final.signature is None:
            return await self._fail(data.transfer_id, f"chain rejected: {final.error}")
        done = await workflow.execute_local_activity_method(
            EngineActivities.transfer_complete,
            TransferLanded(
                transfer_id=data.transfer_id,
                signature=final.signature,
                slot=final.slot,
                block_height=final.block_height,
            ),
            start_to_close_timeout=timedelta(seconds=10),
            retry_policy=_DB_RETRY,
        )
        return self._end(data.transfer_id, done.status, signature=final.signature)

    async def _fail(self, transfer_id: str, reason: str) -> TransferResult:
        ended = await workflow.execute_local_activity_method(
            EngineActivities.transfer_fail,
            TransferFailure(transfer_id=transfer_id, reason=reason),
            start_to_close_timeout=timedelta(seconds=10),
            retry_policy=_DB_RETRY,
        )
        return self._end(transfer_id, ended.status, error=reason)

    def _end(
        self,
        transfer_id: str,
        status: str,
        *,
        signature: str | None = None,
        error: str | None = None,
    ) -> TransferResult:
        workflow.upsert_search_attributes([STATUS.value_set(status)])
        return TransferResult(transfer_id, status, signature=signature, error=error)
