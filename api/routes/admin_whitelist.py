"""Administration of the MCD whitelist: list, suspend / activate, remove.

Every change goes to the chain first (through the gateway, exactly once per op key), then to
the database; see onboarding/whitelist.py. Mounted under ``/v1`` and ``/api/open``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel
from sqlalchemy import func, select

from api.deps import SessionDep, SettingsDep
from api.envelope import Envelope, PageParams, meta, page, resource, single
from api.routes.onboarding import ADMIN_PROBLEMS, AdminCaller, ProjectIdPath
from chain.errors import ChainRejected, ChainUnavailable
from core.errors import InvalidState, NotFound, ServiceUnavailable
from db.models.onboarding import McdWhitelistEntry
from onboarding import whitelist as wls

router = APIRouter(tags=["whitelist"])

_CHANGE_PROBLEMS: dict[int | str, dict[str, Any]] = {
    **ADMIN_PROBLEMS,
    404: {"description": "The project has no whitelist entry (`not-found`)"},
    409: {"description": "Removed entry, or the program refused the change (`invalid-state`)"},
    503: {"description": "Chain unreachable (`service-unavailable`); repeat the call, the "
          "pending write is resumed, never doubled"},
}  # fmt: skip


class WhitelistStatusIn(BaseModel):
    status: Literal["active", "suspended"]

    model_config = {"json_schema_extra": {"examples": [{"status": "suspended"}]}}


def _chain(request: Request, settings: SettingsDep) -> wls.WhitelistChain:
    return wls.WhitelistChain.of(request.app.state.gateway, request.app.state.solana, settings)


async def _change(
    request: Request, settings: SettingsDep, project_id: int, action: str
) -> McdWhitelistEntry:
    return await change_entry(request, project_id, action)


async def change_entry(request: Request, project_id: int, action: str) -> McdWhitelistEntry:
    """suspend | activate | remove, chain first (onboarding.whitelist.change), as problems.
    Shared by the admin API and the operator console."""
    settings = request.app.state.settings
    try:
        return await wls.change(
            request.app.state.session_maker, _chain(request, settings), project_id, action
        )
    except wls.UnknownEntry as exc:
        raise NotFound(str(exc)) from exc
    except wls.WhitelistConflict as exc:
        raise InvalidState(str(exc)) from exc
    except ChainRejected as exc:
        raise InvalidState(f"The whitelist program refused the change: {exc.err}") from exc
    except ChainUnavailable as exc:
        raise ServiceUnavailable(
            "The chain is unreachable; the change is pending, repeat the call",
            headers={"Retry-After": "5"},
        ) from exc


_LIST_PROBLEMS: dict[int | str, dict[str, Any]] = {
    **ADMIN_PROBLEMS,
    503: {"description": "Chain unreachable: the entries' on-chain fields cannot be read "
          "(`service-unavailable`)"},
}  # fmt: skip


async def _onchain(chain: wls.WhitelistChain, project_ids: list[int]) -> dict[int, Any]:
    try:
        return await chain.entries(project_ids)
    except ChainUnavailable as exc:
        raise ServiceUnavailable(
            "The chain is unreachable; the whitelist entries cannot be read",
            headers={"Retry-After": "5"},
        ) from exc


@router.get("/admin/mcd/whitelist", response_model=Envelope, responses=_LIST_PROBLEMS)
async def list_whitelist(
    admin: AdminCaller,
    session: SessionDep,
    request: Request,
    settings: SettingsDep,
    paging: Annotated[PageParams, Query()],
    status: Literal["active", "suspended", "removed", "current", "all"] = "current",
) -> dict[str, Any]:
    """The stored MCD whitelist with each entry's decoded on-chain account (administrator)."""
    statement = select(McdWhitelistEntry)
    if status == "current":
        statement = statement.where(McdWhitelistEntry.status != "removed")
    elif status != "all":
        statement = statement.where(McdWhitelistEntry.status == status)
    total = await session.scalar(select(func.count()).select_from(statement.subquery()))
    rows = await session.scalars(
        statement.order_by(McdWhitelistEntry.project_id)
        .offset(paging.offset)
        .limit(paging.per_page)
    )
    entries = list(rows)
    onchain = await _onchain(_chain(request, settings), [r.project_id for r in entries])
    items = [
        resource("mcd_whitelist_entry", r.id, wls.entry_attributes(r, onchain.get(r.project_id)))
        for r in entries
    ]
    return page(items, total or 0, paging)


@router.put(
    "/admin/mcd/whitelist/{project_id}/status", response_model=Envelope, responses=_CHANGE_PROBLEMS
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
    entry = await _change(request, settings, project_id, action)
    onchain = await _onchain(_chain(request, settings), [project_id])
    return single(
        "mcd_whitelist_entry",
        entry.id,
        {"status": entry.status, "updated_at": entry.updated_at.isoformat()}
        | wls.entry_attributes(entry, onchain.get(project_id)),
    )


@router.delete(
    "/admin/mcd/whitelist/{project_id}",
    responses={
        **_CHANGE_PROBLEMS,
        200: {"description": "`data.message` and `data.remove_tx` (the removal signature)"},
    },
)
async def remove_from_whitelist(
    project_id: ProjectIdPath, admin: AdminCaller, request: Request, settings: SettingsDep
) -> dict[str, Any]:
    """Remove a project from the whitelist on chain and in the stored list (administrator)."""
    entry = await _change(request, settings, project_id, "remove")
    return {
        "data": {
            "message": f"Project {project_id} was removed from the MCD whitelist",
            "project_id": project_id,
            "remove_tx": entry.remove_tx,
        },
        "meta": meta(),
    }
