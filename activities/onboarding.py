"""Activities of the project approval, thin adapters of onboarding.applications: each opens a
session, calls the service, commits (or makes the one chain write). Each is idempotent (safe
to retry at any point); a refusal of the service is a non-retryable ApplicationError.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.heartbeat import heartbeating
from core.errors import DomainError
from onboarding import applications, queries, whitelist_entries
from onboarding.whitelist import WhitelistChain, error_text

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class CreateProjectInput:
    application_id: str
    admin_uid: str
    allowed_scopes: list[str] | None = None


@dataclass
class ProjectCreated:
    project_id: int
    wallet_address: str


@dataclass
class WhitelistAddInput:
    application_id: str
    project_id: int
    wallet_address: str


@dataclass
class WhitelistAdded:
    pda: str
    bump: int
    signature: str


@dataclass
class CompleteApprovalInput:
    application_id: str
    admin_uid: str
    project_id: int
    pda: str
    bump: int
    signature: str


@dataclass
class ApprovalFailedInput:
    application_id: str
    error: str


@dataclass
class WhitelistChange:
    project_id: int
    action: str
    op_key: str


@dataclass
class WhitelistWritten:
    succeeded: bool
    signature: str
    error: str  # the program's refusal, when not succeeded


@dataclass
class WhitelistSettle:
    project_id: int
    action: str
    op_key: str
    signature: str | None  # None: the program refused the change


def add_op_key(application_id: str) -> str:
    return f"whitelist:add:{application_id}"


class OnboardingActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self._sessions = deps.sessions
        self._chain = WhitelistChain.of(deps.gateway, deps.settings)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncSession]:
        """One session, committed at the end; a service refusal is final (not retried)."""
        async with self._sessions() as session:
            try:
                yield session
            except DomainError as exc:
                raise ApplicationError(
                    exc.detail, type=type(exc).__name__, non_retryable=True
                ) from exc
            await session.commit()

    @activity.defn(name="onboarding.create_project")
    async def create_project(self, data: CreateProjectInput) -> ProjectCreated:
        """The application's projects row (created once; its id is kept on the application)."""
        async with self._transaction() as session:
            app = await applications.create_project(
                session, uuid.UUID(data.application_id), data.admin_uid, data.allowed_scopes
            )
        assert app.project_id is not None
        return ProjectCreated(app.project_id, app.mcd_wallet_address)

    @activity.defn(name="onboarding.whitelist_add")
    @heartbeating  # it waits for the write's finality
    async def whitelist_add(self, data: WhitelistAddInput) -> WhitelistAdded:
        """Add the project to the on-chain whitelist (exactly once per application)."""
        pda, bump = self._chain.pda(data.project_id)
        async with self._transaction() as session:
            app = await queries.application(session, uuid.UUID(data.application_id))
            name = app.project_name
        instructions = self._chain.instructions(
            "add", data.project_id, data.wallet_address, project_name=name
        )
        # ChainUnavailable / ChainTimeout propagate: Temporal retries, the op_key keeps it once.
        write = await self._chain.write(add_op_key(data.application_id), instructions)
        if not write.succeeded:
            raise ApplicationError(
                f"the whitelist program refused the entry: {error_text(write)}",
                type="WhitelistRejected",
                non_retryable=True,
            )
        return WhitelistAdded(pda=str(pda), bump=bump, signature=write.signature)

    @activity.defn(name="onboarding.complete_approval")
    async def complete_approval(self, data: CompleteApprovalInput) -> None:
        """Store the whitelist entry and mark the application approved."""
        entry = applications.Whitelisted(data.project_id, data.pda, data.bump, data.signature)
        async with self._transaction() as session:
            await applications.complete(
                session, uuid.UUID(data.application_id), data.admin_uid, entry
            )

    @activity.defn(name="onboarding.approval_failed")
    async def approval_failed(self, data: ApprovalFailedInput) -> None:
        """Keep the reason an approval could not finish (shown to admins)."""
        async with self._transaction() as session:
            await applications.fail(session, uuid.UUID(data.application_id), data.error)

    @activity.defn(name="onboarding.whitelist_change")
    @heartbeating
    async def whitelist_change(self, data: WhitelistChange) -> WhitelistWritten:
        """Write an admin's whitelist change on chain (exactly once per op_key) to its end."""
        instructions = self._chain.instructions(data.action, data.project_id)
        # ChainUnavailable / ChainTimeout propagate: Temporal retries, the op_key keeps it once.
        write = await self._chain.write(data.op_key, instructions)
        error = "" if write.succeeded else error_text(write)
        return WhitelistWritten(write.succeeded, write.signature, error)

    @activity.defn(name="onboarding.whitelist_settle")
    async def whitelist_settle(self, data: WhitelistSettle) -> None:
        """Apply the change's outcome to the stored entry and the project."""
        change = whitelist_entries.PendingChange(data.project_id, data.action, data.op_key)
        async with self._transaction() as session:
            await whitelist_entries.settle_change(session, change, data.signature)
