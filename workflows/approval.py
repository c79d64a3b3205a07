"""ApprovalWorkflow: an approved application becomes a project on the MCD whitelist.

create project row -> whitelist add on chain -> record. Each step is idempotent, so a chain
outage only delays the approval (the whitelist step retries until the chain answers) and never
doubles it: one projects row (its id is kept on the application), one chain write (op_key from
the application id), one whitelist row (unique project_id), the credentials made once by the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.onboarding import (
        ApprovalFailedInput,
        CompleteApprovalInput,
        CreateProjectInput,
        OnboardingActivities,
        WhitelistAddInput,
    )
    from workflows.steps import Step, backoff

# One database activity of onboarding.
DB_STEP = Step(timedelta(seconds=30), backoff(timedelta(seconds=1), timedelta(seconds=30), 20))
# One chain write of onboarding: 90 s a try; the chain may be down for a long time, so retry
# without a cap, at most every 15 s. It heartbeats while it waits for finality: a worker killed
# during it is noticed after 10 s of silence, not at the 90 s timeout.
CHAIN_STEP = Step(
    timedelta(seconds=90),
    backoff(timedelta(seconds=1), timedelta(seconds=15), 0, factor=1.5),
    heartbeat=timedelta(seconds=10),
)


@dataclass
class ApprovalInput:
    application_id: str
    admin_uid: str
    # Project scopes chosen by the approving admin (None: every project scope).
    allowed_scopes: list[str] | None = None


@dataclass
class ApprovalResult:
    application_id: str
    project_id: int
    whitelist_pda: str
    whitelist_bump: int
    whitelist_tx: str


@workflow.defn
class ApprovalWorkflow:
    @workflow.run
    async def run(self, data: ApprovalInput) -> ApprovalResult:
        created = await DB_STEP.run(
            OnboardingActivities.create_project,
            CreateProjectInput(data.application_id, data.admin_uid, data.allowed_scopes),
        )
        project_id = created.project_id
        try:
            added = await CHAIN_STEP.run(
                OnboardingActivities.whitelist_add,
                WhitelistAddInput(data.application_id, project_id, created.wallet_address),
            )
        except ActivityError as exc:
            cause = exc.cause
            message = str(cause) if cause is not None else str(exc)
            await DB_STEP.run(
                OnboardingActivities.approval_failed,
                ApprovalFailedInput(data.application_id, message),
            )
            raise ApplicationError(message, type="ApprovalFailed", non_retryable=True) from exc
        entry = (project_id, added.pda, added.bump, added.signature)
        await DB_STEP.run(
            OnboardingActivities.complete_approval,
            CompleteApprovalInput(data.application_id, data.admin_uid, *entry),
        )
        return ApprovalResult(data.application_id, *entry)
