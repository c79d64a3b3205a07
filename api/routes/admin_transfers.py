"""Operator endpoints of the transaction engine (role ``admin``): stuck transfers, retry,
cancel, reconciliation drifts. Every action is audited. See docs/engine.md."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Security
from pydantic import BaseModel, Field
from sqlalchemy import func, select, true
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.client import Client, WorkflowExecutionStatus

from api.auth.deps import current_user
from api.auth.principal import UserPrincipal
from api.deps import GatewayDep, SessionDep
from api.envelope import Envelope, PageParams, page, resource, single
from api.ratelimit import client_ip
from api.routes.funds import decimals, problem, start_workflow
from api.routes.transfers import transfer_attributes
from chain.errors import ChainError, UnknownChainWrite
from chain.gateway import ChainGateway
from core.errors import DomainError, NotFound, ServiceUnavailable
from core.logging import request_id_var
from db.models.engine import ReconciliationDrift, Transfer
from engine import operators, search, transfers
from engine.errors import Rejected
from engine.locks import iso
from events.audit import new_audit
from workflows.transfers import TransferInput, TransferWorkflow

router = APIRouter(prefix="/v1/admin", tags=["admin: engine"])

ADMIN_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Missing or invalid bearer token (`unauthorized`)"},
    403: {"description": "Not an administrator (`admin-required`)"},
    404: {"description": "`not-found`"},
    409: {"description": "`invalid-state`: the transfer's state does not allow it"},
}


async def require_admin(
    user: Annotated[UserPrincipal, Security(current_user)],
) -> UserPrincipal:
    if not user.is_admin:
        raise DomainError("This endpoint is for administrators", status=403, slug="admin-required")
    return user


Admin = Annotated[UserPrincipal, Security(require_admin)]


class AdminActionIn(BaseModel):
    reason: str = Field("operator action", min_length=1, max_length=200)


def _audit(
    session: AsyncSession,
    request: Request,
    admin: UserPrincipal,
    operation: str,
    transfer: Transfer,
    body: dict[str, Any],
    response: dict[str, Any],
    status: str = "success",
) -> None:
    audit = new_audit(
        actor=f"user:{admin.uid}",
        operation=operation,
        project_id=transfer.project_id,
        user_uid=transfer.from_uid,
        request_body=body,
        idempotency_key=None,
        client_ip=client_ip(request.scope),
        request_id=request_id_var.get(),
        status=status,
    )
    audit.response_body = response
    session.add(audit)


async def _chain_view(gateway: GatewayDep, transfer: Transfer) -> dict[str, Any] | None:
    if transfer.op_key is None:
        return None
    try:
        write = await gateway.get_write(transfer.op_key)
    except UnknownChainWrite:
        return None
    return {
        "status": write.status,
        "signature": write.signature,
        "attempt": write.attempt,
        "send_count": write.send_count,
        "last_valid_block_height": write.last_valid_block_height,
        "confirmation_status": write.confirmation_status,
    }


@router.get("/transfers/stuck", response_model=Envelope, responses=ADMIN_PROBLEMS)
async def stuck_transfers(
    admin: Admin,
    session: SessionDep,
    gateway: GatewayDep,
    request: Request,
    older_than_seconds: Annotated[int, Query(ge=0, le=30 * 86400)] = 120,
) -> Any:
    """Transfers `pending_onchain` (or `pending`) for longer than the threshold."""
    rows = await operators.stuck(session, timedelta(seconds=older_than_seconds))
    items = []
    for t in rows:
        attributes = transfer_attributes(t, decimals(request), [])
        attributes["onchain_at"] = iso(t.onchain_at)
        attributes["chain_write"] = await _chain_view(gateway, t)
        items.append(resource("transfer", t.id, attributes))
    return page(items, len(items), PageParams(page=1, per_page=100))


async def retry(
    request: Request,
    session: AsyncSession,
    gateway: ChainGateway,
    admin: UserPrincipal,
    transfer_id: str,
    reason: str | None,
) -> dict[str, Any]:
    """Re-check the chain, restart the workflow if it is gone, audit; commits. Shared by the
    admin API and the operator console (same rules, same audit)."""
    transfer = await session.get(Transfer, transfer_id)
    if transfer is None:
        raise NotFound(f"Transfer {transfer_id} not found")
    if transfer.status not in ("pending", "pending_onchain"):
        raise DomainError(
            f"Transfer {transfer_id} is {transfer.status}; nothing to retry",
            status=409,
            slug="invalid-state",
        )
    chain: dict[str, Any] | None = None
    if transfer.op_key is not None and transfer.status == "pending_onchain":
        try:
            write = await gateway.advance(transfer.op_key)
            chain = {"status": write.status, "signature": write.signature}
        except UnknownChainWrite:
            chain = None
        except ChainError as exc:
            raise DomainError(
                f"The chain is unreachable: {exc}", status=503, slug="service-unavailable"
            ) from exc
    client: Client = request.app.state.temporal
    running = False
    if transfer.workflow_id:
        try:
            described = await client.get_workflow_handle(transfer.workflow_id).describe()
            running = described.status == WorkflowExecutionStatus.RUNNING
        except Exception:
            running = False
    workflow_id = transfer.workflow_id
    if not running:
        workflow_id = f"transfer-{transfer.id}-retry-{uuid.uuid4().hex[:8]}"
        started = await start_workflow(
            request,
            TransferWorkflow.run,
            TransferInput(transfer_id=transfer.id),
            workflow_id=workflow_id,
            attributes=search.attributes(
                project_id=transfer.project_id,
                user_uid=transfer.from_uid,
                operation="transfer",
                status=transfer.status,
                currency=transfer.currency,
            ),
            name="TransferWorkflow",
        )
        if not started:
            raise ServiceUnavailable(
                "The workflow engine is unreachable; retry shortly", headers={"Retry-After": "5"}
            )
    body = {"action": "retry", "transfer_id": transfer.id, "reason": reason}
    response = {
        "transfer_id": transfer.id,
        "status": transfer.status,
        "chain_write": chain,
        "workflow_id": workflow_id,
        "workflow_restarted": not running,
    }
    _audit(session, request, admin, "admin.transfer.retry", transfer, body, response)
    await session.commit()
    return response


async def cancel(
    request: Request,
    session: AsyncSession,
    gateway: ChainGateway,
    admin: UserPrincipal,
    transfer_id: str,
    reason_text: str,
) -> dict[str, Any]:
    """Cancel a transfer whose write can no longer land (engine.operators.cancel), audit the
    outcome (a refusal too); commits. Shared by the admin API and the operator console."""
    reason = f"cancelled by operator: {reason_text}"
    try:
        ended = await operators.cancel(
            session, gateway, request.app.state.solana, transfer_id, reason, decimals(request)
        )
    except Rejected as exc:
        await session.rollback()
        transfer = await session.get(Transfer, transfer_id)
        if transfer is not None:
            body = {"action": "cancel", "transfer_id": transfer_id}
            _audit(
                session, request, admin, "admin.transfer.cancel", transfer, body,
                {"type": exc.slug, "detail": exc.detail}, status="failed",
            )  # fmt: skip
            await session.commit()
        raise problem(exc) from exc
    except ChainError as exc:
        raise DomainError(
            f"The chain is unreachable: {exc}", status=503, slug="service-unavailable"
        ) from exc
    history = await transfers.history(session, transfer_id)
    attributes = transfer_attributes(ended, decimals(request), history)
    _audit(
        session, request, admin, "admin.transfer.cancel", ended,
        {"action": "cancel", "transfer_id": transfer_id, "reason": reason},
        {"status": ended.status},
    )  # fmt: skip
    await session.commit()
    return attributes


@router.post("/transfers/{transfer_id}/retry", response_model=Envelope, responses=ADMIN_PROBLEMS)
async def retry_transfer(
    transfer_id: str,
    admin: Admin,
    session: SessionDep,
    gateway: GatewayDep,
    request: Request,
    payload: AdminActionIn | None = None,
) -> Any:
    """Re-check the chain and drive a stuck transfer on (re-sends exactly the same write)."""
    reason = payload.reason if payload else None
    response = await retry(request, session, gateway, admin, transfer_id, reason)
    return single("transfer_retry", transfer_id, response)


@router.post("/transfers/{transfer_id}/cancel", response_model=Envelope, responses=ADMIN_PROBLEMS)
async def admin_cancel_transfer(
    transfer_id: str,
    admin: Admin,
    session: SessionDep,
    gateway: GatewayDep,
    request: Request,
    payload: AdminActionIn | None = None,
) -> Any:
    """Cancel a transfer whose chain write can no longer land (never sent, or expired)."""
    reason = payload.reason if payload else "operator action"
    attributes = await cancel(request, session, gateway, admin, transfer_id, reason)
    return single("transfer", transfer_id, attributes)


@router.get("/reconciliation/drifts", response_model=Envelope, responses=ADMIN_PROBLEMS)
async def reconciliation_drifts(
    admin: Admin,
    session: SessionDep,
    paging: Annotated[PageParams, Query()],
    run_id: str | None = None,
) -> Any:
    """Drift rows found by reconciliation (newest first; filter by run_id)."""
    where = ReconciliationDrift.run_id == run_id if run_id else true()
    total = (
        await session.scalar(select(func.count()).select_from(ReconciliationDrift).where(where))
        or 0
    )
    rows = await session.scalars(
        select(ReconciliationDrift)
        .where(where)
        .order_by(ReconciliationDrift.id.desc())
        .offset(paging.offset)
        .limit(paging.per_page)
    )
    items = [
        resource(
            "reconciliation_drift",
            d.id,
            {
                "run_id": d.run_id,
                "user_uid": d.user_uid,
                "currency": d.currency,
                "address": d.address,
                "chain_balance": str(d.chain_balance),
                "ledger_balance": str(d.ledger_balance),
                "drift": str(d.drift),
                "created_at": iso(d.created_at),
            },
        )
        for d in rows
    ]
    return page(items, total, paging)
