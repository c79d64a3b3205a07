"""Activities of the project approval: create the project row, add it to the on-chain MCD
whitelist, record the outcome. Each is idempotent (safe to retry at any point) and commits once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy.dialects.postgresql import insert
from temporalio import activity
from temporalio.exceptions import ApplicationError

from core.scopes import PROJECT_SCOPES
from db.models import Project
from db.models.onboarding import McdWhitelistEntry, ProjectApplication, ProjectStatusRecord
from onboarding.clients import ensure_project_client
from onboarding.whitelist import WhitelistChain, error_text

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class ApprovalInput:
    application_id: str
    admin_uid: str
    # Project scopes chosen by the approving admin (None: every project scope).
    allowed_scopes: list[str] | None = None


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
class ApprovalResult:
    application_id: str
    project_id: int
    whitelist_pda: str
    whitelist_bump: int
    whitelist_tx: str


def add_op_key(application_id: str) -> str:
    return f"whitelist:add:{application_id}"


class OnboardingActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self._sessions = deps.sessions
        self._chain = WhitelistChain.of(deps.gateway, deps.solana, deps.settings)

    @activity.defn(name="onboarding.create_project")
    async def create_project(self, data: CreateProjectInput) -> ProjectCreated:
        """The application's projects row (created once; its id is kept on the application)."""
        async with self._sessions() as session:
            app = await session.get(
                ProjectApplication, uuid.UUID(data.application_id), with_for_update=True
            )
            if app is None or app.status not in ("approving", "approved"):
                status = app.status if app else "missing"
                raise ApplicationError(
                    f"application {data.application_id} is {status}",
                    type="InvalidState",
                    non_retryable=True,
                )
            if app.project_id is not None:
                return ProjectCreated(app.project_id, app.mcd_wallet_address)
            project = Project(
                name=app.project_name,
                description=app.project_description,
                allowed_scopes=list(
                    PROJECT_SCOPES if data.allowed_scopes is None else data.allowed_scopes
                ),
                rate_limit_tier="free",
                ip_allowlist=[],
                limits={},
                api_key=app.api_key,
                api_secret_hash=app.api_secret_hash,
                api_secret_encrypted=app.api_secret_encrypted,
                mcd_wallet_address=app.mcd_wallet_address,
                owner_uid=app.developer_uid,
            )
            session.add(project)
            await session.flush()
            session.add(
                ProjectStatusRecord(
                    project_id=project.project_id,
                    from_status=None,
                    status="active",
                    reason=f"application {app.id} approved",
                    changed_by=data.admin_uid,
                )
            )
            # Its OAuth client, so users can authorize it (redirect URIs set by the project).
            await ensure_project_client(session, project)
            app.project_id = project.project_id
            await session.commit()
            return ProjectCreated(project.project_id, app.mcd_wallet_address)

    @activity.defn(name="onboarding.whitelist_add")
    async def whitelist_add(self, data: WhitelistAddInput) -> WhitelistAdded:
        """Add the project to the on-chain whitelist (exactly once per application)."""
        pda, bump = self._chain.pda(data.project_id)
        async with self._sessions() as session:
            app = await session.get(ProjectApplication, uuid.UUID(data.application_id))
            if app is None:
                raise ApplicationError("application vanished", non_retryable=True)
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
        async with self._sessions() as session:
            app = await session.get(
                ProjectApplication, uuid.UUID(data.application_id), with_for_update=True
            )
            if app is None:
                raise ApplicationError("application vanished", non_retryable=True)
            await session.execute(
                insert(McdWhitelistEntry)
                .values(
                    project_id=data.project_id,
                    project_name=app.project_name,
                    wallet_address=app.mcd_wallet_address,
                    pda_address=data.pda,
                    pda_bump=data.bump,
                    status="active",
                    created_by=data.admin_uid,
                    add_tx=data.signature,
                    last_tx=data.signature,
                )
                .on_conflict_do_nothing(index_elements=["project_id"])
            )
            if app.status == "approving":
                app.status = "approved"
                app.reviewed_at = datetime.now(UTC)
                app.approval_error = None
            app.whitelist_pda = data.pda
            app.whitelist_bump = data.bump
            app.whitelist_tx = data.signature
            await session.commit()

    @activity.defn(name="onboarding.approval_failed")
    async def approval_failed(self, data: ApprovalFailedInput) -> None:
        """Keep the reason an approval could not finish (shown to admins)."""
        async with self._sessions() as session:
            app = await session.get(
                ProjectApplication, uuid.UUID(data.application_id), with_for_update=True
            )
            if app is not None:
                app.approval_error = data.error[:2000]
                await session.commit()
