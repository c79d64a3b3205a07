"""One mining submission (or one batch of them) from verification to a confirmed reward.

verify (each item: verified or rejected) -> mint (custody accounts, then many mint_to per
transaction, op_key from the activity id or the batch) -> confirm at finalization (ledger
credit + ``mining.reward.confirmed`` per item). Items keep their own status throughout."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.mining import (
        ConfirmResult,
        FailInput,
        MiningActivities,
        MintInput,
        MintResult,
        VerifyInput,
        VerifyResult,
    )


@dataclass
class MiningInput:
    activity_ids: list[str]
    # "mining:<activity id>" for one submission, "mining:<workflow id>" for a batch.
    op_key_base: str


@dataclass
class MiningResult:
    confirmed: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


# The API starts the workflow just before its commit: retry briefly until the rows are visible;
# ~40 s without them means the submission rolled back, and the workflow ends.
_VERIFY_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=100),
    backoff_coefficient=1.5,
    maximum_interval=timedelta(seconds=1),
    maximum_attempts=45,
)
# Chain steps retry until the write is final: a landed mint must always be credited.
_CHAIN_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    maximum_interval=timedelta(seconds=15),
    maximum_attempts=0,
    non_retryable_error_types=["ChainRejected"],
)


@workflow.defn
class MiningActivityWorkflow:
    @workflow.run
    async def run(self, data: MiningInput) -> MiningResult:
        verified: VerifyResult = await workflow.execute_activity_method(
            MiningActivities.verify,
            VerifyInput(activity_ids=data.activity_ids),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=_VERIFY_RETRY,
        )
        result = MiningResult(rejected=list(verified.rejected))
        if not verified.verified:
            return result
        try:
            minted: MintResult = await workflow.execute_activity_method(
                MiningActivities.mint,
                MintInput(op_key_base=data.op_key_base, items=verified.verified, packing="size"),
                start_to_close_timeout=timedelta(seconds=120),
                retry_policy=_CHAIN_RETRY,
            )
        except ActivityError as exc:
            # Raised only before anything was minted (custody account creation refused).
            failed = await workflow.execute_activity_method(
                MiningActivities.fail,
                FailInput([i.activity_id for i in verified.verified], f"chain_rejected: {exc}"),
                start_to_close_timeout=timedelta(seconds=30),
                retry_policy=RetryPolicy(maximum_attempts=10),
            )
            result.failed.extend(failed)
            return result
        confirmed: ConfirmResult = await workflow.execute_activity_method(
            MiningActivities.confirm,
            minted,
            start_to_close_timeout=timedelta(seconds=120),
            retry_policy=_CHAIN_RETRY,
        )
        result.confirmed.extend(confirmed.confirmed)
        result.failed.extend(confirmed.failed)
        return result
