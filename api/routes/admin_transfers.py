"""Operator endpoints of the transaction engine (role ``admin``): stuck transfers, retry,
cancel, reconciliation drifts. Every action is audited. See docs/engine.md."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.client import Client, WorkflowExecutionStatus

from access.ratelimit import client_ip
from api.auth.principal import UserPrincipal
from api.callers import Admin
from api.common import decimals
from api.deps import GatewayDep, SessionDep
from api.envelope import PageParams, PageQuery, page, resource, single
from api.openapi import problems
from api.schemas.transfers import (
    DriftAttributes,
    RetryAttributes,
    StuckTransferAttributes,
    TransferAttributes,
)
from api.starts import start
from api.typed import Many, One
from chain.gateway import ChainGateway
from core.errors import InvalidState, ServiceUnavailable
from core.logging import request_id_var
from db.models.engine import Transfer
from engine import operators, transfers
from engine.ids import transfer_retry_workflow_id
from onboarding.queries import paged
from workflows.transfers import TransferInput, TransferWorkflow

router = APIRouter(prefix="/v1/admin", tags=["admin: engine"])

ADMIN_PROBLEMS = problems(
    404, caller="admin", s409="`invalid-state`: the transfer's state does not allow it"
)


class AdminActionIn(BaseModel):
    reason: str = Field("operator action", min_length=1, max_length=200)


@dataclass(frozen=True)
class OperatorCall:
    """An administrator's action on transfers: what retry and cancel need (the admin API
    builds it as a dependency, the operator console from its own session)."""

    request: Request
    session: AsyncSession
    gateway: ChainGateway
    admin: UserPrincipal

    @property
    def operator(self) -> operators.Operator:
        return operators.Operator(
            self.admin.uid, client_ip(self.request.scope), request_id_var.get()
        )


async def operator_call(
    request: Request, admin: Admin, session: SessionDep, gateway: GatewayDep
) -> OperatorCall:
    return OperatorCall(request, session, gateway, admin)


Operation = Annotated[OperatorCall, Depends(operator_call)]


@router.get(
    "/transfers/stuck", response_model=Many[StuckTransferAttributes], responses=ADMIN_PROBLEMS
)
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
        write = await operators.chain_view(gateway, t)
        shown = StuckTransferAttributes.stuck(t, decimals(request), write)
        items.append(resource("transfer", t.id, shown))
    return page(items, len(items), PageParams(page=1, per_page=100))


async def _running(request: Request, workflow_id: str | None) -> bool:
    if not workflow_id:
        return False
    client: Client = request.app.state.temporal
    try:
        described = await client.get_workflow_handle(workflow_id).describe()
    except Exception:  # gone, or Temporal unreachable: a new run is started (or refused) below
        return False
    return described.status == WorkflowExecutionStatus.RUNNING


async def retry(call: OperatorCall, transfer_id: str, reason: str | None) -> RetryAttributes:
    """Re-check the chain (operators.retry), restart the workflow if it is gone, audit;
    commits. The admin API and the operator console both call this."""
    request, session = call.request, call.session
    checked = await operators.retry(session, call.gateway, transfer_id)
    transfer = checked.transfer
    running = await _running(request, transfer.workflow_id)
    workflow_id = transfer.workflow_id
    if not running:
        # Nothing to commit first: the transfer is already durable, only its workflow is gone.
        workflow_id = transfer_retry_workflow_id(transfer.id, uuid.uuid4().hex[:8])
        started = await start(
            request,
            TransferWorkflow.run,
            TransferInput(transfer_id=transfer.id),
            workflow_id=workflow_id,
            attributes=transfers.search_attributes(transfer, transfer.status),
        )
        if not started:
            raise ServiceUnavailable(
                "The workflow engine is unreachable; retry shortly", headers={"Retry-After": "5"}
            )
    body = {"action": "retry", "transfer_id": transfer.id, "reason": reason}
    response = RetryAttributes.model_validate(
        {
            "transfer_id": transfer.id,
            "status": transfer.status,
            "chain_write": checked.chain_write,
            "workflow_id": workflow_id,
            "workflow_restarted": not running,
        }
    )
    audited = response.model_dump(mode="json")
    operators.audit(session, call.operator, "admin.transfer.retry", transfer, body, audited)
    await session.commit()
    return response


async def cancel(call: OperatorCall, transfer_id: str, reason_text: str) -> TransferAttributes:
    """Cancel a transfer whose write can no longer land (operators.cancel), audit the outcome
    (a refusal too); commits. The admin API and the operator console both call this."""
    reason = f"cancelled by operator: {reason_text}"
    request, session, operator = call.request, call.session, call.operator
    try:
        ended = await operators.cancel(
            session, call.gateway, transfer_id, reason, decimals(request)
        )
    except InvalidState as exc:
        # The refusal is audited too (in a transaction of its own), then shown as it is.
        await session.rollback()
        if (transfer := await session.get(Transfer, transfer_id)) is not None:
            body = {"action": "cancel", "transfer_id": transfer_id}
            refusal = {"type": exc.slug, "detail": exc.detail}
            operators.audit(
                session, operator, "admin.transfer.cancel", transfer, body, refusal, "failed"
            )
            await session.commit()
        raise
    history = await transfers.history(session, transfer_id)
    attributes = TransferAttributes.of(ended, decimals(request), history)
    body = {"action": "cancel", "transfer_id": transfer_id, "reason": reason}
    operators.audit(
        session, operator, "admin.transfer.cancel", ended, body, {"status": ended.status}
    )
    await session.commit()
    return attributes


@router.post(
    "/transfers/{transfer_id}/retry",
    response_model=One[RetryAttributes],
    responses=ADMIN_PROBLEMS,
)
async def retry_transfer(
    transfer_id: str, call: Operation, payload: AdminActionIn | None = None
) -> Any:
    """Re-check the chain and drive a stuck transfer on (re-sends exactly the same write)."""
    response = await retry(call, transfer_id, payload.reason if payload else None)
    return single("transfer_retry", transfer_id, response)


@router.post(
    "/transfers/{transfer_id}/cancel",
    response_model=One[TransferAttributes],
    responses=ADMIN_PROBLEMS,
)
async def admin_cancel_transfer(
    transfer_id: str, call: Operation, payload: AdminActionIn | None = None
) -> Any:
    """Cancel a transfer whose chain write can no longer land (never sent, or expired)."""
    reason = payload.reason if payload else "operator action"
    attributes = await cancel(call, transfer_id, reason)
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
    rows, total = await paged(
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
