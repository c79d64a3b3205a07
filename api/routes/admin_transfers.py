"""Operator endpoints of the transaction engine (role ``admin``): stuck transfers, retry,
cancel, reconciliation drifts. Every action is audited. See docs/engine.md."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api import operations
from api.callers import Admin, AdminOperation
from api.deps import DecimalsDep, GatewayDep, SessionDep
from api.envelope import PageParams, PageQuery, page, resource, single
from api.openapi import problems
from api.schemas.transfers import (
    DriftAttributes,
    RetryAttributes,
    StuckTransferAttributes,
    TransferAttributes,
)
from api.typed import Many, One
from db.paging import page_of
from engine import operators

router = APIRouter(prefix="/v1/admin", tags=["admin: engine"])

ADMIN_PROBLEMS = problems(
    404, caller="admin", s409="`invalid-state`: the transfer's state does not allow it"
)


class AdminActionIn(BaseModel):
    reason: str = Field("operator action", min_length=1, max_length=200)


@router.get(
    "/transfers/stuck", response_model=Many[StuckTransferAttributes], responses=ADMIN_PROBLEMS
)
async def stuck_transfers(
    admin: Admin,
    session: SessionDep,
    gateway: GatewayDep,
    decimals: DecimalsDep,
    older_than_seconds: Annotated[int, Query(ge=0, le=30 * 86400)] = 120,
) -> Any:
    """Transfers `pending_onchain` (or `pending`) for longer than the threshold."""
    rows = await operators.stuck(session, timedelta(seconds=older_than_seconds))
    items = []
    for t in rows:
        write = await operators.chain_view(gateway, t)
        shown = StuckTransferAttributes.stuck(t, decimals, write)
        items.append(resource("transfer", t.id, shown))
    return page(items, len(items), PageParams(page=1, per_page=100))


@router.post(
    "/transfers/{transfer_id}/retry",
    response_model=One[RetryAttributes],
    responses=ADMIN_PROBLEMS,
)
async def retry_transfer(
    transfer_id: str, call: AdminOperation, payload: AdminActionIn | None = None
) -> Any:
    """Re-check the chain and drive a stuck transfer on (re-sends exactly the same write)."""
    response = await operations.retry_transfer(
        call, transfer_id, payload.reason if payload else None
    )
    return single("transfer_retry", transfer_id, response)


@router.post(
    "/transfers/{transfer_id}/cancel",
    response_model=One[TransferAttributes],
    responses=ADMIN_PROBLEMS,
)
async def admin_cancel_transfer(
    transfer_id: str, call: AdminOperation, payload: AdminActionIn | None = None
) -> Any:
    """Cancel a transfer whose chain write can no longer land (never sent, or expired)."""
    reason = payload.reason if payload else "operator action"
    attributes = await operations.cancel_transfer(call, transfer_id, reason)
    return single("transfer", transfer_id, attributes)


@router.get(
    "/reconciliation/drifts", response_model=Many[DriftAttributes], responses=ADMIN_PROBLEMS
)
async def reconciliation_drifts(
    admin: Admin,
    session: SessionDep,
    paging: PageQuery,
    run_id: str | None = None,
) -> Any:
    """Drift rows found by reconciliation (newest first; filter by run_id)."""
    rows, total = await page_of(
        session,
        operators.drifts(run_id=run_id or ""),
        operators.NEWEST_DRIFTS_FIRST,
        paging,
    )
    return page(
        [resource("reconciliation_drift", d.id, DriftAttributes.of(d)) for d in rows],
        total,
        paging,
    )
