"""The stored MCD whitelist entries and their admin changes (suspend, activate, remove):
flush-only, like every service. The chain write of a change runs in WhitelistChangeWorkflow
(workflows/whitelist.py), never inside the API.

A change is two-phase: (1) ``begin_change`` locks the entry, bumps ``version`` and keeps the
pending op key (the caller commits, then starts the workflow); (2) the workflow drives that
chain write to a final state; (3) ``settle_change`` applies the outcome to the entry (and the
project's ``suspended`` flag). Until (3), ``begin_change`` hands back the pending change for
any further request, so a change is never lost nor made twice.

Op keys: ``whitelist:<project_id>:<action>:<version>``; suspend / activate / suspend are three
distinct writes while a retry of one change reuses its key.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from core.errors import InvalidState, NotFound
from db.models import Project
from db.models.onboarding import McdWhitelistEntry, ProjectApplication

ACTIONS = {"suspend": "suspended", "activate": "active", "remove": "removed"}


class UnknownEntry(NotFound):
    """No whitelist entry for the project."""


class WhitelistConflict(InvalidState):
    """The requested change does not fit the entry's state."""


def op_key(project_id: int, action: str, version: int) -> str:
    return f"whitelist:{project_id}:{action}:{version}"


@dataclass(frozen=True)
class PendingChange:
    project_id: int
    action: str
    op_key: str
    recorded_now: bool = False  # newly recorded by this call (not an older pending change)


async def entry(session: AsyncSession, project_id: int, *, lock: bool = False) -> McdWhitelistEntry:
    statement = select(McdWhitelistEntry).where(McdWhitelistEntry.project_id == project_id)
    if lock:
        statement = statement.with_for_update()
    row = await session.scalar(statement.execution_options(populate_existing=True))
    if row is None:
        raise UnknownEntry(f"Project {project_id} has no whitelist entry")
    return row


async def begin_change(session: AsyncSession, project_id: int, action: str) -> PendingChange | None:
    """The chain write to drive next for ``action``: a change already pending (whatever its
    action: it is settled first), or this one, newly recorded. None when the entry already is
    in the requested state (nothing to write). Flush only."""
    row = await entry(session, project_id, lock=True)
    if row.pending_op_key is not None and row.pending_action is not None:
        return PendingChange(project_id, row.pending_action, row.pending_op_key)
    if row.status == ACTIONS[action]:
        return None
    if row.status == "removed":
        raise WhitelistConflict(f"Project {project_id} was removed from the whitelist")
    row.version += 1
    row.pending_action = action
    row.pending_op_key = op_key(project_id, action, row.version)
    await session.flush()
    return PendingChange(project_id, action, row.pending_op_key, recorded_now=True)


async def settle_change(
    session: AsyncSession, change: PendingChange, signature: str | None
) -> McdWhitelistEntry:
    """Apply the final outcome of a change's chain write: ``signature`` of the landed write,
    or None when the program refused it (the entry keeps its status). Flush only; applying
    the same outcome twice changes nothing."""
    row = await entry(session, change.project_id, lock=True)
    if row.pending_op_key != change.op_key:  # applied already
        return row
    row.pending_action = None
    row.pending_op_key = None
    if signature is None:
        await session.flush()
        return row
    now = datetime.now(UTC)
    row.status = ACTIONS[change.action]
    row.last_tx = signature
    if change.action == "remove":
        row.remove_tx = signature
    # The flag api/auth/project.py reads: only an active entry lets the project call.
    await session.execute(
        update(Project)
        .where(Project.project_id == change.project_id)
        .values(suspended=change.action != "activate", updated_at=now)
    )
    await session.execute(
        update(ProjectApplication)
        .where(
            ProjectApplication.project_id == change.project_id,
            ProjectApplication.status.in_(("approved", "suspended")),
        )
        .values(
            status="approved" if change.action == "activate" else "suspended",
            whitelist_status=row.status,
            updated_at=now,
        )
    )
    await session.flush()
    await session.refresh(row)
    return row
