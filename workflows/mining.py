"""One mining submission (or one batch of them) from verification to a confirmed reward.

A single submission: one activity, ``mining.settle_single``, in which the worker's shared
minter verifies, mints and confirms it together with the others that arrive with it
(``mining.minter``). It is an ordinary activity, not a local one: it lasts until finality (a
second, more under load), and a local activity would hold the workflow's task open that long
(Temporal warned of 8 s tasks); it heartbeats, so a killed worker's try is retried in seconds.

A batch: verify (each item: verified or rejected) -> mint (custody accounts, then many mint_to
per transaction, op_key from the batch) -> confirm at finalization (ledger credit +
``mining.reward.confirmed`` per item). Items keep their own status throughout.

The API starts it after committing the submissions; the recovery sweep starts it for committed
submissions whose start never happened (``submission_input`` rebuilds the same input)."""

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
        SettleSingleInput,
        SingleResult,
        VerifyInput,
        VerifyResult,
    )
    from core.workflow_ids import is_mining_batch
    from workflows.steps import Step, backoff


@dataclass
class MiningInput:
    activity_ids: list[str]  # the submissions' ids (their wire name)
    # "mining:<submission id>" for one submission, "mining:<workflow id>" for a batch.
    op_key_base: str


def submission_input(workflow_id: str, submission_ids: list[str]) -> MiningInput:
    """The one input a workflow id ever gets, so a start by the API and a start by the sweep
    write the same op_keys."""
    if is_mining_batch(workflow_id) or len(submission_ids) != 1:
        return MiningInput(activity_ids=submission_ids, op_key_base=f"mining:{workflow_id}")
    return MiningInput(activity_ids=submission_ids, op_key_base=f"mining:{submission_ids[0]}")


@dataclass
class MiningResult:
    confirmed: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


# A database step: the API and the recovery sweep start the workflow after the commit, so its
# rows are there at the first try.
_VERIFY = Step(timedelta(seconds=30), backoff(timedelta(seconds=1), timedelta(seconds=30), 10))
# Chain steps retry until the write is final: a landed mint must always be credited.
_CHAIN_RETRY = backoff(
    timedelta(seconds=1), timedelta(seconds=15), 0, final_errors=["ChainRejected"]
)
# They heartbeat while they send and await finality: a killed worker's try is retried after
# 10 s of silence, not at the timeout (the chaos suite found batches held two minutes by it).
_CHAIN = Step(timedelta(seconds=120), _CHAIN_RETRY, heartbeat=timedelta(seconds=10))
_FAIL = Step(timedelta(seconds=30), RetryPolicy(maximum_attempts=10))
# One single submission's whole settlement, usually about a second; a try that outlives this
# (an RPC outage) is retried, resuming from the records. Missing rows are retried too. It
# heartbeats while it gathers, sends and awaits finality: a killed worker's try is retried after
# 10 s of silence instead of at the timeout.
_SETTLE_SINGLE = Step(
    timedelta(seconds=120),
    backoff(timedelta(milliseconds=200), timedelta(seconds=15), 0, final_errors=["ChainRejected"]),
    heartbeat=timedelta(seconds=10),
)


# Unsandboxed, as TransferWorkflow: this module imports only temporalio and pass-through modules
# and does no I/O, clock or randomness of its own (the sandbox's per-run cost is not worth it).
@workflow.defn(sandboxed=False)
class MiningSubmissionWorkflow:
    @workflow.run
    async def run(self, data: MiningInput) -> MiningResult:
        if len(data.activity_ids) == 1:
            single: SingleResult = await _SETTLE_SINGLE.run(
                MiningActivities.settle_single, SettleSingleInput(data.activity_ids[0])
            )
            return MiningResult(single.confirmed, single.rejected, single.failed)
        verified: VerifyResult = await _VERIFY.run(
            MiningActivities.verify, VerifyInput(activity_ids=data.activity_ids)
        )
        result = MiningResult(rejected=list(verified.rejected))
        if not verified.verified:
            return result
        try:
            minted: MintResult = await _CHAIN.run(
                MiningActivities.mint,
                MintInput(op_key_base=data.op_key_base, items=verified.verified),
            )
        except ActivityError as exc:
            # Raised only before anything was minted (custody account creation refused).
            failed = await _FAIL.run(
                MiningActivities.fail,
                FailInput([i.activity_id for i in verified.verified], f"chain_rejected: {exc}"),
            )
            result.failed.extend(failed)
            return result
        confirmed: ConfirmResult = await _CHAIN.run(MiningActivities.confirm, minted)
        result.confirmed.extend(confirmed.confirmed)
        result.failed.extend(confirmed.failed)
        return result
