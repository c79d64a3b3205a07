"""Operator endpoints of withdrawals (role ``admin``, a token of the gateway's own client:
``api.callers.Admin``): every withdrawal listed and filtered, approvals and refusals, cancel
before signing, retry, the outflow breaker. Every decision is audited with the admin's uid and
reason (``api.operations``, shared with the console). See docs/engine.md, "Withdrawals"."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api import operations
from api.callers import Admin, AdminOperation
from api.deps import GatewayDep, SessionDep
from api.envelope import PageQuery, page, resource, single
from api.openapi import problems
from api.schemas.withdrawals import (
    BreakerAttributes,
    WithdrawalAttributes,
    WithdrawalRetryAttributes,
)
from api.typed import Many, One
from core.errors import NotFound
from db.models.withdrawals import Withdrawal
from db.paging import page_of
from engine import withdrawal_controls, withdrawal_queries

router = APIRouter(prefix="/v1/admin/withdrawals", tags=["admin: withdrawals"])

_PROBLEMS = problems(
    404, caller="admin",
    s409="`invalid-state` (the withdrawal's state does not allow it), `already-decided`",
)  # fmt: skip
_DECISION_PROBLEMS = _PROBLEMS | problems(
    s403="`admin-required`, or `self-approval` (an administrator's own withdrawal)"
)

View = Literal[
    "stuck", "awaiting_approval", "held", "cooling_off", "pending", "pending_onchain",
    "completed", "failed", "cancelled", "rejected", "all",
]  # fmt: skip


class DecisionIn(BaseModel):
    reason: str = Field(min_length=1, max_length=200, description="Recorded in the audit trail")


class OperatorActionIn(BaseModel):
    reason: str = Field("operator action", min_length=1, max_length=200)


@router.get("", response_model=Many[WithdrawalAttributes], responses=_PROBLEMS)
async def admin_withdrawals(
    admin: Admin,
    session: SessionDep,
    gateway: GatewayDep,
    paging: PageQuery,
    view: View = "all",
    q: Annotated[str, Query(max_length=100, description="A withdrawal id or a user uid")] = "",
    currency: Literal["MCC", "MCD"] | None = None,
    project_id: Annotated[int | None, Query(ge=0, le=2**63 - 1)] = None,
    older_than_seconds: Annotated[int, Query(ge=0, le=30 * 86400)] = 120,
) -> Any:
    """Every withdrawal, newest first, by view, id or user, currency and project.
    Views: stuck, awaiting_approval, held (by the breaker), cooling_off, a status, all."""
    statement = withdrawal_queries.listing(
        view, q=q, currency=currency or "", project_id=project_id,
        older_than=timedelta(seconds=older_than_seconds),
    )  # fmt: skip
    rows, total = await page_of(session, statement, withdrawal_queries.NEWEST_FIRST, paging)
    counts = await withdrawal_queries.approvals_of(session, [w.id for w in rows])
    decimals = gateway.token_decimals()
    items = [
        resource("withdrawal", w.id, WithdrawalAttributes.of(w, decimals, counts[w.id]))
        for w in rows
    ]
    return page(items, total, paging)


@router.get("/breaker", response_model=One[BreakerAttributes], responses=_PROBLEMS)
async def withdrawal_breaker(admin: Admin, session: SessionDep) -> Any:
    """The deployment's outflow breaker: tripped or not, by which withdrawal, the last reset."""
    row = await withdrawal_controls.breaker(session)
    return single("withdrawal_breaker", "1", BreakerAttributes.of(row))


@router.post("/breaker/reset", response_model=One[BreakerAttributes], responses=_PROBLEMS)
async def reset_withdrawal_breaker(payload: DecisionIn, call: AdminOperation) -> Any:
    """Reset the tripped outflow breaker; audited with your uid and reason.
    The withdrawals it held go on (each still waits for its own approvals and cooling-off);
    the hourly outflow counts again from now."""
    attributes = await operations.reset_withdrawal_breaker(call, payload.reason)
    return single("withdrawal_breaker", "1", attributes)


@router.get("/{withdrawal_id}", response_model=One[WithdrawalAttributes], responses=_PROBLEMS)
async def admin_withdrawal(withdrawal_id: str, call: AdminOperation) -> Any:
    """A withdrawal with its history, the administrators' decisions and its chain write."""
    w = await call.session.get(Withdrawal, withdrawal_id)
    if w is None:
        raise NotFound(f"Withdrawal {withdrawal_id} not found")
    shown = await operations.withdrawal_view(call.session, call.gateway, w)
    return single("withdrawal", w.id, shown)


@router.post(
    "/{withdrawal_id}/approve",
    response_model=One[WithdrawalAttributes],
    responses=_DECISION_PROBLEMS,
)
async def approve_withdrawal(withdrawal_id: str, payload: DecisionIn, call: AdminOperation) -> Any:
    """Approve a pending withdrawal above the threshold; audited with your uid and reason.
    Above the second threshold it needs two different administrators' approvals."""
    shown = await operations.decide_withdrawal(call, withdrawal_id, "approve", payload.reason)
    return single("withdrawal", withdrawal_id, shown)


@router.post(
    "/{withdrawal_id}/reject",
    response_model=One[WithdrawalAttributes],
    responses=_DECISION_PROBLEMS,
)
async def reject_withdrawal(withdrawal_id: str, payload: DecisionIn, call: AdminOperation) -> Any:
    """Refuse a pending withdrawal: it ends `rejected`, its amount available again; audited."""
    shown = await operations.decide_withdrawal(call, withdrawal_id, "reject", payload.reason)
    return single("withdrawal", withdrawal_id, shown)


@router.post(
    "/{withdrawal_id}/cancel", response_model=One[WithdrawalAttributes], responses=_PROBLEMS
)
async def admin_cancel_withdrawal(
    withdrawal_id: str, call: AdminOperation, payload: OperatorActionIn | None = None
) -> Any:
    """Cancel a withdrawal not yet being sent (`pending`); after that, only a retry."""
    reason = payload.reason if payload else "operator action"
    shown = await operations.cancel_withdrawal(call, withdrawal_id, reason)
    return single("withdrawal", withdrawal_id, shown)


@router.post(
    "/{withdrawal_id}/retry",
    response_model=One[WithdrawalRetryAttributes],
    responses=_PROBLEMS,
)
async def retry_withdrawal(
    withdrawal_id: str, call: AdminOperation, payload: OperatorActionIn | None = None
) -> Any:
    """Re-check a stuck withdrawal's chain write and restart its workflow if it is gone.
    The same bytes are re-sent (never a second write); audited."""
    shown = await operations.retry_withdrawal(
        call, withdrawal_id, payload.reason if payload else None
    )
    return single("withdrawal_retry", withdrawal_id, shown)
