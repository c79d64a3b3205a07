"""The project application's state machine, flush-only like every service.

apply -> pending; begin_approval -> approved with its keys, its project and its whitelist
entry ``pending``; complete -> whitelist ``active`` (the on-chain entry written); fail ->
whitelist ``failed`` with the program's refusal; reject (pending only) -> rejected.

The callers only adapt: the admin API route and the operator console commit and then start
``ApprovalWorkflow``, which writes the whitelist entry; its activities
(activities/onboarding.py) open a session, call ``create_project`` / ``complete`` / ``fail`` and
commit. The secret is handed out once by ``take_secret``, whatever the whitelist's state.
Reads for listings: onboarding/queries.py.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from solders.pubkey import Pubkey
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from access.scopes import PROJECT_SCOPES
from chain import whitelist as wl
from core.errors import DomainError, InvalidState, NotFound
from core.security import (
    decrypt_secret,
    encrypt_secret,
    hash_api_secret,
    new_api_key,
    new_api_secret,
)
from db.models import Project, User
from db.models.onboarding import (
    OPEN_APPLICATION_STATUSES,
    McdWhitelistEntry,
    ProjectApplication,
    ProjectStatusRecord,
)
from onboarding.clients import ensure_project_client


def check_wallet(value: str) -> str:
    """A Base58 chain address that decodes to 32 bytes (ValueError otherwise)."""
    value = value.strip()
    try:
        Pubkey.from_string(value)
    except ValueError as exc:
        raise ValueError("must be a Base58 chain address of 32 bytes") from exc
    return value


@dataclass(frozen=True)
class NewCredentials:
    api_key: str
    api_secret: str
    api_secret_hash: str
    api_secret_encrypted: str


def new_credentials(master_key: str, master_key_id: str) -> NewCredentials:
    secret = new_api_secret()
    return NewCredentials(
        api_key=new_api_key(),
        api_secret=secret,
        api_secret_hash=hash_api_secret(secret),
        api_secret_encrypted=encrypt_secret(secret, master_key, master_key_id),
    )


class PendingApplicationExists(DomainError):
    status, slug = 409, "pending-application-exists"

    def __init__(self, existing: uuid.UUID | None) -> None:
        super().__init__("You already have a pending application; wait for its review")
        if existing is not None:
            self.extra["application_id"] = str(existing)


async def apply(
    session: AsyncSession, developer_uid: str, fields: dict[str, Any]
) -> ProjectApplication:
    """A new pending application of the developer (one open application each). Flush only."""
    developer = await session.get(User, developer_uid)
    if developer is None:
        raise NotFound(f"User {developer_uid} does not exist")
    open_one = await session.scalar(
        select(ProjectApplication.id).where(
            ProjectApplication.developer_uid == developer_uid,
            ProjectApplication.status.in_(OPEN_APPLICATION_STATUSES),
        )
    )
    if open_one is not None:
        raise PendingApplicationExists(open_one)
    row = ProjectApplication(
        id=uuid.uuid4(),
        developer_uid=developer_uid,
        developer_email=developer.email,
        status="pending",
        **fields,
    )
    try:
        async with session.begin_nested():  # a savepoint: the caller's transaction survives
            session.add(row)
    except IntegrityError as exc:  # a concurrent apply won the partial unique index
        raise PendingApplicationExists(None) from exc
    return row


async def _locked(
    session: AsyncSession, application_id: uuid.UUID, *, only: tuple[str, ...] | None = None
) -> ProjectApplication:
    """The application, locked for this transaction (NotFound if there is none; InvalidState
    if ``only`` names the statuses it may be in and it is in another)."""
    row = await session.get(ProjectApplication, application_id, with_for_update=True)
    if row is None:
        raise NotFound(f"Application {application_id} does not exist")
    if only is not None and row.status not in only:
        raise InvalidState(f"application {application_id} is {row.status}")
    return row


@dataclass(frozen=True)
class Approval:
    application: ProjectApplication
    approved_now: bool  # False: an approval already made whose secret is not yet shown


async def begin_approval(
    session: AsyncSession,
    application_id: uuid.UUID,
    admin_uid: str,
    master_key: str,
    master_key_id: str,
    whitelist_program: Pubkey,
    allowed_scopes: list[str] | None = None,
    rate_limit_tier: str = "free",
) -> Approval:
    """Lock the application; a pending one becomes ``approved`` with its credentials made
    (secret kept hashed and AES-GCM encrypted until it is shown once), its project created with
    the chosen scopes (None: every project scope) and rate-limit tier, and its whitelist entry
    ``pending`` at its derived address (``whitelist_program``'s PDA of the project id), for
    ApprovalWorkflow to write on chain. Flush only.

    The project is made here, in the approver's transaction, so the workflow needs nothing
    but the application id: the recovery sweep can start a missing one without the scopes.

    An application approved whose secret was not shown yet is returned unchanged
    (``approved_now`` False), so a repeated approve call hands the secret out once."""
    row = await _locked(session, application_id)
    if row.status in ("rejected", "suspended") or row.secret_delivered_at is not None:
        raise InvalidState(f"Application {application_id} is {row.status}; it cannot be approved")
    if row.status != "pending":
        return Approval(row, approved_now=False)
    creds = new_credentials(master_key, master_key_id)
    row.status = "approved"
    row.reviewed_by = admin_uid
    row.reviewed_at = datetime.now(UTC)
    row.api_key = creds.api_key
    row.api_secret_hash = creds.api_secret_hash
    row.api_secret_encrypted = creds.api_secret_encrypted
    row.whitelist_status = "pending"
    await session.flush()
    await create_project(session, application_id, admin_uid, allowed_scopes, rate_limit_tier)
    assert row.project_id is not None
    pda, bump = wl.find_whitelist_pda(whitelist_program, row.project_id)
    row.whitelist_pda, row.whitelist_bump = str(pda), bump
    await session.flush()
    return Approval(row, approved_now=True)


# The statuses of an application whose approval is running (or done).
_APPROVING = ("approving", "approved")


async def create_project(
    session: AsyncSession,
    application_id: uuid.UUID,
    admin_uid: str,
    allowed_scopes: list[str] | None,
    rate_limit_tier: str = "free",
) -> ProjectApplication:
    """The application's projects row, with its status record and OAuth client; made once
    (its id is kept on the application, so a retry returns it). Flush only."""
    app = await _locked(session, application_id, only=_APPROVING)
    if app.project_id is not None:
        return app
    project = Project(
        name=app.project_name,
        description=app.project_description,
        allowed_scopes=list(PROJECT_SCOPES if allowed_scopes is None else allowed_scopes),
        rate_limit_tier=rate_limit_tier,
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
            changed_by=admin_uid,
        )
    )
    # Its OAuth client, so users can authorize it (redirect URIs set by the project).
    await ensure_project_client(session, project)
    app.project_id = project.project_id
    await session.flush()
    return app


@dataclass(frozen=True)
class Whitelisted:
    """The on-chain whitelist entry the approval wrote."""

    project_id: int
    pda: str
    bump: int
    signature: str


async def complete(
    session: AsyncSession, application_id: uuid.UUID, admin_uid: str, entry: Whitelisted
) -> ProjectApplication:
    """Store the whitelist entry (once per project): the application's whitelist is active."""
    app = await _locked(session, application_id)
    await session.execute(
        insert(McdWhitelistEntry)
        .values(
            project_id=entry.project_id,
            project_name=app.project_name,
            wallet_address=app.mcd_wallet_address,
            pda_address=entry.pda,
            pda_bump=entry.bump,
            status="active",
            created_by=admin_uid,
            add_tx=entry.signature,
            last_tx=entry.signature,
        )
        .on_conflict_do_nothing(index_elements=["project_id"])
    )
    if app.whitelist_status in (None, "pending", "failed"):
        app.whitelist_status = "active"
        app.approval_error = None
    app.whitelist_pda = entry.pda
    app.whitelist_bump = entry.bump
    app.whitelist_tx = entry.signature
    await session.flush()
    return app


async def fail(session: AsyncSession, application_id: uuid.UUID, error: str) -> None:
    """The program refused the whitelist entry: keep its reason (shown to admins). Flush
    only."""
    app = await session.get(ProjectApplication, application_id, with_for_update=True)
    if app is not None:
        app.approval_error = error[:2000]
        app.whitelist_status = "failed"
        await session.flush()


async def take_secret(
    session: AsyncSession, application_id: uuid.UUID, keys: dict[str, str]
) -> tuple[ProjectApplication, str]:
    """The approved application's api_secret, exactly once (whatever its whitelist's state):
    the row is locked and its encrypted copy erased (flush only; the caller commits before
    showing it)."""
    row = await session.get(
        ProjectApplication, application_id, with_for_update=True, populate_existing=True
    )
    if row is None or row.status != "approved" or row.api_secret_encrypted is None:
        raise InvalidState(
            f"Application {application_id} is already approved; its secret was shown once"
        )
    secret = decrypt_secret(row.api_secret_encrypted, keys)
    row.api_secret_encrypted = None
    row.api_secret_hash = None
    row.secret_delivered_at = datetime.now(UTC)
    await session.flush()
    return row, secret


async def reject(
    session: AsyncSession, application_id: uuid.UUID, reason: str, admin_uid: str
) -> ProjectApplication:
    """Reject a pending application with a reason (flush only)."""
    row = await _locked(session, application_id)
    if row.status != "pending":
        raise InvalidState(f"Application {application_id} is {row.status}; it cannot be rejected")
    row.status = "rejected"
    row.rejection_reason = reason
    row.reviewed_by = admin_uid
    row.reviewed_at = datetime.now(UTC)
    await session.flush()
    return row
