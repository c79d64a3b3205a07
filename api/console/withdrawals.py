"""Console pages of withdrawals: the list (the approvals queue by default; stuck, held by the
breaker, cooling off, by status), a withdrawal's page with its approve, reject, cancel and
retry forms, and the breaker's reset. Every action is the admin API's own function
(``api.operations``), so the rules and the audit (the admin's uid and reason) are the API's."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from api import operations
from api.callers import actor_of
from api.console import pages
from api.deps import DecimalsDep
from core.errors import DomainError, NotFound
from db.models.withdrawals import Withdrawal
from engine import withdrawal_controls, withdrawal_queries

router = pages.console_router()

ACTIONS = ("approve", "reject", "cancel", "retry")


async def _breaker_and_approvals(session: AsyncSession, rows: pages.Paged) -> dict[str, object]:
    counts = await withdrawal_queries.approvals_of(session, [w.id for w in rows.rows])
    return {"breaker": await withdrawal_controls.breaker(session), "approvals": counts}


@router.get("/withdrawals")
async def withdrawals_page(
    request: Request,
    decimals: DecimalsDep,
    view: str = "awaiting_approval",
    older_than: int = 120,
    q: str = "",
    currency: str = "",
    page: int = 1,
) -> Response:
    """Withdrawals by view (engine.withdrawal_queries.listing's rules), user or id, currency."""
    older_than = max(0, min(older_than, 30 * 86400))
    statement = withdrawal_queries.listing(
        view, q=q, currency=currency, older_than=timedelta(seconds=older_than)
    )
    return await pages.list_page(
        request, "withdrawals.html", statement, withdrawal_queries.NEWEST_FIRST, page,
        _breaker_and_approvals, view=view, views=withdrawal_queries.WITHDRAWAL_VIEWS,
        older_than=older_than, q=q, currency=currency,
        amount=lambda w: decimals.format(w.amount, w.currency),
    )  # fmt: skip


@router.get("/withdrawals/{withdrawal_id}")
async def withdrawal_page(request: Request, decimals: DecimalsDep, withdrawal_id: str) -> Response:
    async with pages.sessions(request) as session:
        await pages.admin(request, session)
        w = await session.get(Withdrawal, withdrawal_id)
        if w is None:
            raise NotFound(f"Withdrawal {withdrawal_id} not found")
        shown = await operations.withdrawal_view(session, request.app.state.gateway, w)
    return pages.render(
        request, "withdrawal.html", w=w, shown=shown,
        amount=decimals.format(w.amount, w.currency),
    )  # fmt: skip


@router.post("/withdrawals/breaker/reset")
async def breaker_reset(request: Request) -> Response:
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        reason = form.get("reason", "").strip()[:200] or "breaker reset (console)"
        call = operations.OperatorCall(
            request, session, request.app.state.gateway, actor_of(request, principal.uid)
        )
        await operations.reset_withdrawal_breaker(call, reason)
    return RedirectResponse("/console/withdrawals?view=held&done=reset", 303)


@router.post("/withdrawals/{withdrawal_id}/{action}")
async def withdrawal_action(request: Request, withdrawal_id: str, action: str) -> Response:
    """approve | reject | cancel | retry, with the form's reason (required to decide)."""
    if action not in ACTIONS:
        raise NotFound(f"Unknown withdrawal action {action}")
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        reason = form.get("reason", "").strip()[:200]
        if action in ("approve", "reject") and not reason:
            raise DomainError(
                "Give the reason for your decision: it is kept in the audit trail",
                status=422, slug="validation-error",
            )  # fmt: skip
        call = operations.OperatorCall(
            request, session, request.app.state.gateway, actor_of(request, principal.uid)
        )
        if action in ("approve", "reject"):
            await operations.decide_withdrawal(call, withdrawal_id, action, reason)
        elif action == "cancel":
            await operations.cancel_withdrawal(call, withdrawal_id, reason or "console")
        else:
            await operations.retry_withdrawal(call, withdrawal_id, reason or "console retry")
    return RedirectResponse(f"/console/withdrawals/{quote(withdrawal_id)}?done={action}", 303)
