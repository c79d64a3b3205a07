"""ApprovalWorkflow: an approved application becomes a project on the MCD whitelist.

create project row -> whitelist add on chain -> record. Each step is idempotent, so a chain
outage only delays the approval (the whitelist step retries until the chain answers) and never
doubles it: one projects row (its id is kept on the application), one chain write (op_key from
the application id), one whitelist row (unique project_id), the credentials made once by the API.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.onboarding import (
        ApprovalFailedInput,
        CompleteApprovalInput,
        CreateProjectInput,
        OnboardingActivities,
        WhitelistAddInput,
    )
    from onboarding.applications import approval_workflow_id

DB_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=20,
)
# The chain may be down for a long time: retry without a cap, at most every 15 s.
CHAIN_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=1.5,
    maximum_interval=timedelta(seconds=15),
    maximum_attempts=0,
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


P = TypeVar("P")
R = TypeVar("R")


workflow_id = approval_workflow_id


async def db_step(method: Callable[[Any, P], Awaitable[R]], arg: P) -> R:
    """One database activity of onboarding (30 s, DB_RETRY)."""
    return await workflow.execute_activity_method(
        method, arg, start_to_close_timeout=timedelta(seconds=30), retry_policy=DB_RETRY
    )


async def chain_step(method: Callable[[Any, P], Awaitable[R]], arg: P) -> R:
    """One chain write of onboarding (90 s a try, retried while the chain is down)."""
    return await workflow.execute_activity_method(
        method, arg, start_to_close_timeout=timedelta(seconds=90), retry_policy=CHAIN_RETRY
    )


@workflow.defn
class ApprovalWorkflow:
    @workflow.run
    async def run(self, data: ApprovalInput) -> ApprovalResult:
        created = await db_step(
            OnboardingActivities.create_project,
            CreateProjectInput(data.application_id, data.admin_uid, data.allowed_scopes),
        )
        project_id = created.project_id
        try:
            added = await chain_step(
                OnboardingActivities.whitelist_add,
                WhitelistAddInput(data.application_id, project_id, created.wallet_address),
            )
        except ActivityError as exc:
            cause = exc.cause
            message = str(cause) if cause is not None else str(exc)
            await db_step(
                OnboardingActivities.approval_failed,
                ApprovalFailedInput(data.application_id, message),
            )
            raise ApplicationError(message, type="ApprovalFailed", non_retryable=True) from exc
        entry = (project_id, added.pda, added.bump, added.signature)
        await db_step(
            OnboardingActivities.complete_approval,
            CompleteApprovalInput(data.application_id, data.admin_uid, *entry),
        )
        return ApprovalResult(data.application_id, *entry)
