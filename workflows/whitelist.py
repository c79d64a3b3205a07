"""WhitelistChangeWorkflow: an admin's change of a project's MCD whitelist entry (suspend,
activate, remove), recorded as pending by the API (onboarding.whitelist_entries.begin_change),
written on chain here and then applied to the stored entry.

The chain write retries until the chain answers (its op key keeps it exactly once); a refusal
of the program is applied (the pending change is cleared) and fails the workflow, final.
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.onboarding import OnboardingActivities, WhitelistChange, WhitelistSettle
    from workflows.approval import CHAIN_STEP, DB_STEP


@dataclass
class WhitelistChangeInput:
    project_id: int
    action: str  # suspend | activate | remove
    op_key: str


@dataclass
class WhitelistChangeResult:
    signature: str


@workflow.defn
class WhitelistChangeWorkflow:
    @workflow.run
    async def run(self, data: WhitelistChangeInput) -> WhitelistChangeResult:
        change = WhitelistChange(data.project_id, data.action, data.op_key)
        written = await CHAIN_STEP.run(OnboardingActivities.whitelist_change, change)
        signature = written.signature if written.succeeded else None
        settle = WhitelistSettle(data.project_id, data.action, data.op_key, signature)
        await DB_STEP.run(OnboardingActivities.whitelist_settle, settle)
        if not written.succeeded:
            raise ApplicationError(written.error, type="WhitelistRejected", non_retryable=True)
        return WhitelistChangeResult(written.signature)
