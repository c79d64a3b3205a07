"""Console pages of operations: the MCD whitelist, chain transactions, transfers (stuck,
failed, cancelled; retry and cancel) and reconciliation drifts. Actions go through the admin
API's own functions (api.operations: change_whitelist_entry, retry_transfer, cancel_transfer),
so the rules and the audit are the API's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from solders.signature import Signature
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from api import operations
from api.callers import actor_of
from api.console import pages
from api.deps import DecimalsDep
from chain.errors import ChainError
from core.errors import DomainError, NotFound
from core.workflow_ids import approval_workflow_id
from db.models.chain import ChainTransaction
from db.models.engine import Transfer
from db.models.onboarding import McdWhitelistEntry
from engine import operators, transfers, withdrawal_queries
from onboarding import queries

router = pages.console_router()

WHITELIST_STATUSES = ("current", "active", "suspended", "removed", "all")


async def _approvals(session: AsyncSession, rows: pages.Paged) -> dict[str, Any]:
    """The approval workflow of each listed entry's project (if it came from one)."""
    origins = await queries.approvals_of(session, [e.project_id for e in rows.rows])
    return {"approvals": {pid: approval_workflow_id(str(aid)) for pid, aid in origins.items()}}


# The MCD whitelist, filterable by status ("current": not removed) and by name / wallet.
pages.status_listing(
    router, "/whitelist", "whitelist.html", queries.whitelist, WHITELIST_STATUSES, "current",
    [McdWhitelistEntry.project_id], _approvals,
)  # fmt: skip


@router.post("/whitelist/{project_id}/{action}")
async def whitelist_action(request: Request, project_id: int, action: str) -> Response:
    """suspend | activate | remove, through the admin API's own function (chain first)."""
    if action not in ("suspend", "activate", "remove"):
        raise NotFound(f"Unknown whitelist action {action}")
    async with pages.sessions(request) as session:
        _, principal, _ = await pages.post(request, session)
    await operations.change_whitelist_entry(
        request, project_id, action, actor_of(request, principal.uid)
    )
    return RedirectResponse("/console/whitelist?status=all", 303)


@router.get("/chain/tx/{signature}")
async def chain_tx(request: Request, signature: str) -> Response:
    """The transaction as the RPC node reports it (getTransaction, finalized if it is)."""
    try:
        parsed = Signature.from_string(signature)
    except ValueError as exc:
        raise DomainError("Not a transaction signature", status=422,
                           slug="validation-error") from exc  # fmt: skip
    async with pages.sessions(request) as session:
        await pages.admin(request, session)
        # One of the gateway's writes: what it paid (chain/fees.py), recorded once it settled.
        write = (
            await session.execute(
                select(ChainTransaction.op_key, ChainTransaction.fee_lamports,
                       ChainTransaction.cu_price)
                .where(ChainTransaction.signature == str(parsed))
            )
        ).first()  # fmt: skip
    try:
        status, tx = await request.app.state.gateway.transaction_view(str(parsed))
    except ChainError as exc:
        raise DomainError(f"The chain RPC is unreachable ({type(exc).__name__})",
                           status=503, slug="service-unavailable") from exc  # fmt: skip
    return pages.render(request, "tx.html", signature=signature, status=status, tx=tx, write=write)


@router.get("/transfers")
async def transfers_page(
    request: Request,
    decimals: DecimalsDep,
    view: str = "stuck",
    older_than: int = 120,
    q: str = "",
    page: int = 1,
) -> Response:
    """Stuck (operators.stuck's rule: pending/pending_onchain older than the threshold), failed
    and cancelled transfers; filter by id, user or project."""
    older_than = max(0, min(older_than, 30 * 86400))
    threshold = timedelta(seconds=older_than)
    statement = operators.listing(view, threshold, q)

    async def stuck_withdrawals(session: AsyncSession, _: pages.Paged) -> dict[str, Any]:
        """The stuck operations are withdrawals too: how many, by the same threshold."""
        stuck = withdrawal_queries.listing("stuck", older_than=threshold).subquery()
        return {"stuck_withdrawals": await session.scalar(select(func.count()).select_from(stuck))}

    return await pages.list_page(
        request, "transfers.html", statement, [Transfer.created_at.desc()], page,
        stuck_withdrawals, view=view, views=operators.TRANSFER_VIEWS, older_than=older_than,
        q=q, amount=lambda t: decimals.format(t.amount, t.currency),
    )  # fmt: skip


@router.get("/transfers/{transfer_id}")
async def transfer_page(request: Request, decimals: DecimalsDep, transfer_id: str) -> Response:
    missing = f"Transfer {transfer_id} not found"
    transfer, read = await pages.detail(
        request, Transfer, transfer_id, missing, history=transfers.history
    )
    write = None
    if transfer.op_key is not None:
        write = await operators.chain_write(request.app.state.gateway, transfer.op_key)
    return pages.render(
        request, "transfer.html", t=transfer, history=read["history"], write=write,
        amount=decimals.format(transfer.amount, transfer.currency),
        actionable=transfer.status in operators.ACTIONABLE,
    )  # fmt: skip


async def _operator_action(request: Request, transfer_id: str, action: str) -> Response:
    """retry | cancel: the admin API's own function, with the form's reason."""
    run = operations.retry_transfer if action == "retry" else operations.cancel_transfer
    async with pages.sessions(request) as session:
        _, principal, form = await pages.post(request, session)
        reason = form.get("reason", "").strip()[:200] or "operator action (console)"
        actor = actor_of(request, principal.uid)
        call = operations.OperatorCall(request, session, request.app.state.gateway, actor)
        await run(call, transfer_id, reason)
    return RedirectResponse(f"/console/transfers/{quote(transfer_id)}?done={action}", 303)


@router.post("/transfers/{transfer_id}/retry")
async def transfer_retry(request: Request, transfer_id: str) -> Response:
    return await _operator_action(request, transfer_id, "retry")


@router.post("/transfers/{transfer_id}/cancel")
async def transfer_cancel(request: Request, transfer_id: str) -> Response:
    return await _operator_action(request, transfer_id, "cancel")


@router.get("/drifts")
async def drifts_page(
    request: Request,
    decimals: DecimalsDep,
    run_id: str = "",
    currency: str = "",
    q: str = "",
    page: int = 1,
) -> Response:
    statement = operators.drifts(run_id.strip(), currency, q.strip())
    return await pages.list_page(
        request, "drifts.html", statement, operators.NEWEST_DRIFTS_FIRST, page,
        run_id=run_id, currency=currency, q=q,
        units=lambda v, currency: decimals.format(v, currency),
    )  # fmt: skip
