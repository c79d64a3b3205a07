"""Administration of the MCD whitelist: list, suspend / activate, remove.

A change is recorded as pending by the service (onboarding.whitelist_entries.begin_change),
committed, and its chain write runs in WhitelistChangeWorkflow (workflows/whitelist.py), never
in the API; the call waits for it and answers with the entry as before. If the chain does not
answer in time the call is a 503: the change stays pending and a repeated call joins it (one
chain write per op key, never two). Mounted under ``/v1`` and ``/api/open``.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from api.callers import ADMIN_PROBLEMS, AdminCaller, ProjectIdPath, actor_of
from api.deps import SessionDep, SettingsDep
from api.envelope import PageQuery, meta, page, resource, single
from api.openapi import problems
from api.schemas.onboarding import (
    WhitelistEntryAttributes,
    WhitelistRemovedBody,
    WhitelistStatusAttributes,
)
from api.starts import finished, start_or_join
from api.typed import Many, One
from core.errors import InvalidState, ServiceUnavailable
from core.workflow_ids import whitelist_change_workflow_id
from db.models.onboarding import McdWhitelistEntry
from onboarding import queries
from onboarding import whitelist as wls
from onboarding import whitelist_entries as entries
from onboarding.control import Actor, audit_action
from workflows.whitelist import WhitelistChangeInput, WhitelistChangeWorkflow

router = APIRouter(tags=["whitelist"])

# How long a change call waits for its chain write before answering 503 (app.state overrides).
WHITELIST_WAIT_SECONDS = 30.0

_CHANGE_PROBLEMS = ADMIN_PROBLEMS | problems(
    s404="The project has no whitelist entry (`not-found`)",
    s409="Removed entry, or the program refused the change (`invalid-state`)",
    s503="Chain unreachable (`service-unavailable`); repeat the call, the "
    "pending write is resumed, never doubled",
)


class WhitelistStatusIn(BaseModel):
    status: Literal["active", "suspended"]

    model_config = {"json_schema_extra": {"examples": [{"status": "suspended"}]}}


def _chain(request: Request, settings: SettingsDep) -> wls.WhitelistChain:
    return wls.WhitelistChain.of(request.app.state.gateway, settings)


async def change_entry(
    request: Request, project_id: int, action: str, actor: Actor
) -> McdWhitelistEntry:
    """suspend | activate | remove: a change already pending is driven to its end first, then
    this one is recorded (audited with ``actor``) and driven (each through
    WhitelistChangeWorkflow, after the commit). Asking for the state the entry is in changes
    nothing. Shared with the operator console."""
    for _ in range(5):
        async with request.app.state.session_maker() as session:
            change = await entries.begin_change(session, project_id, action)
            if change is None:
                return await entries.entry(session, project_id)
            if change.recorded_now:  # ours (not an older pending one driven first)
                audit_action(
                    session, actor, f"admin.whitelist.{action}", project_id,
                    {"action": action}, {"op_key": change.op_key},
                )  # fmt: skip
            await session.commit()
        await _drive(request, change)
    raise entries.WhitelistConflict(f"The whitelist entry of project {project_id} keeps changing")


async def _drive(request: Request, change: entries.PendingChange) -> None:
    arg = WhitelistChangeInput(change.project_id, change.action, change.op_key)
    run = WhitelistChangeWorkflow.run
    handle = await start_or_join(request, run, arg, whitelist_change_workflow_id(change.op_key))
    wait = float(getattr(request.app.state, "whitelist_wait_seconds", WHITELIST_WAIT_SECONDS))
    try:
        done = await finished(handle, wait)
    except WorkflowFailureError as exc:  # the program refused: the change was cleared
        cause = exc.cause.message if isinstance(exc.cause, ApplicationError) else exc.cause
        raise InvalidState(f"The whitelist program refused the change: {cause}") from exc
    if not done:
        raise ServiceUnavailable(
            "The chain is unreachable; the change is pending, repeat the call",
            headers={"Retry-After": "5"},
        )


_LIST_PROBLEMS = ADMIN_PROBLEMS | problems(
    s503="Chain unreachable: the entries' on-chain fields cannot be read (`service-unavailable`)"
)


@router.get(
    "/admin/mcd/whitelist", response_model=Many[WhitelistEntryAttributes], responses=_LIST_PROBLEMS
)
async def list_whitelist(
    admin: AdminCaller,
    session: SessionDep,
    request: Request,
    settings: SettingsDep,
    paging: PageQuery,
    status: Literal["active", "suspended", "removed", "current", "all"] = "current",
) -> dict[str, Any]:
    """The stored MCD whitelist with each entry's decoded on-chain account (administrator)."""
    rows, total = await queries.paged(
        session,
        queries.whitelist(status),
        [McdWhitelistEntry.project_id],
        paging,
    )
    onchain = await wls.onchain_entries(_chain(request, settings), [r.project_id for r in rows])
    items = [
        resource(
            "mcd_whitelist_entry", r.id, WhitelistEntryAttributes.of(r, onchain.get(r.project_id))
        )
        for r in rows
    ]
    return page(items, total, paging)


@router.put(
    "/admin/mcd/whitelist/{project_id}/status",
    response_model=One[WhitelistStatusAttributes],
    responses=_CHANGE_PROBLEMS,
)
async def set_whitelist_status(
    project_id: ProjectIdPath,
    payload: WhitelistStatusIn,
    admin: AdminCaller,
    request: Request,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Suspend or reactivate a project's whitelist entry: chain first, then the database."""
    action = "suspend" if payload.status == "suspended" else "activate"
    entry = await change_entry(request, project_id, action, actor_of(request, admin.uid))
    onchain = await wls.onchain_entries(_chain(request, settings), [project_id])
    shown = WhitelistEntryAttributes.of(entry, onchain.get(project_id)).model_dump()
    # status and updated_at lead (WhitelistStatusAttributes' order), as always on the wire.
    return single("mcd_whitelist_entry", entry.id, WhitelistStatusAttributes(**shown))


@router.delete(
    "/admin/mcd/whitelist/{project_id}",
    response_model=WhitelistRemovedBody,
    responses={
        **_CHANGE_PROBLEMS,
        200: {"description": "`data.message` and `data.remove_tx` (the removal signature)"},
    },
)
async def remove_from_whitelist(
    project_id: ProjectIdPath, admin: AdminCaller, request: Request
) -> dict[str, Any]:
    """Remove a project from the whitelist on chain and in the stored list (administrator)."""
    entry = await change_entry(request, project_id, "remove", actor_of(request, admin.uid))
    return {
        "data": {
            "message": f"Project {project_id} was removed from the MCD whitelist",
            "project_id": project_id,
            "remove_tx": entry.remove_tx,
        },
        "meta": meta(),
    }
