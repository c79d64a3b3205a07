"""An operator's actions that take more than one step: each calls its service, audits the
action (``events.audit.audit_action``), commits, and starts or waits for the workflow it needs.
The admin API (``api/routes/admin_transfers.py``, ``admin_whitelist.py``) and the operator
console (``api/console/operations.py``) call these same functions, so the rules, the audit and
the workflows are written once, beside ``api.starts``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from api.schemas.transfers import RetryAttributes, TransferAttributes
from api.starts import finished, start, start_or_join
from chain.gateway import ChainGateway
from core.errors import InvalidState, ServiceUnavailable
from core.workflow_ids import transfer_retry_workflow_id, whitelist_change_workflow_id
from db.models.engine import Transfer
from db.models.onboarding import McdWhitelistEntry
from engine import operators, transfers
from events.audit import Actor, audit_action
from onboarding import whitelist_entries as entries
from workflows.transfers import TransferInput, TransferWorkflow
from workflows.whitelist import WhitelistChangeInput, WhitelistChangeWorkflow

# How long a whitelist change waits for its chain write before answering 503 (app.state
# ``whitelist_wait_seconds`` overrides).
WHITELIST_WAIT_SECONDS = 30.0


@dataclass(frozen=True)
class OperatorCall:
    """An operator's action on transfers: what retry and cancel need (the admin API builds it
    as a dependency, the console from its own session)."""

    request: Request
    session: AsyncSession
    gateway: ChainGateway
    actor: Actor


def _audit_transfer(
    call: OperatorCall,
    operation: str,
    transfer: Transfer,
    body: dict[str, Any],
    response: dict[str, Any],
    status: str = "success",
) -> None:
    audit_action(
        call.session, call.actor, operation, transfer.project_id, transfer.from_uid,
        body, response, status,
    )  # fmt: skip


async def _running(request: Request, workflow_id: str | None) -> bool:
    if not workflow_id:
        return False
    client: Client = request.app.state.temporal
    try:
        described = await client.get_workflow_handle(workflow_id).describe()
    except Exception:  # gone, or Temporal unreachable: a new run is started (or refused) below
        return False
    return described.status == WorkflowExecutionStatus.RUNNING


async def retry_transfer(
    call: OperatorCall, transfer_id: str, reason: str | None
) -> RetryAttributes:
    """Re-check the chain (operators.retry), restart the workflow if it is gone, audit;
    commits."""
    checked = await operators.retry(call.session, call.gateway, transfer_id)
    transfer = checked.transfer
    running = await _running(call.request, transfer.workflow_id)
    workflow_id = transfer.workflow_id
    if not running:
        # Nothing to commit first: the transfer is already durable, only its workflow is gone.
        workflow_id = transfer_retry_workflow_id(transfer.id, uuid.uuid4().hex[:8])
        started = await start(
            call.request,
            TransferWorkflow.run,
            TransferInput(transfer_id=transfer.id),
            workflow_id=workflow_id,
            attributes=transfers.search_attributes(transfer, transfer.status),
        )
        if not started:
            raise ServiceUnavailable(
                "The workflow engine is unreachable; retry shortly", headers={"Retry-After": "5"}
            )
    response = RetryAttributes.model_validate(
        {
            "transfer_id": transfer.id,
            "status": transfer.status,
            "chain_write": checked.chain_write,
            "workflow_id": workflow_id,
            "workflow_restarted": not running,
        }
    )
    body = {"action": "retry", "transfer_id": transfer.id, "reason": reason}
    _audit_transfer(call, "admin.transfer.retry", transfer, body, response.model_dump(mode="json"))
    await call.session.commit()
    return response


async def cancel_transfer(
    call: OperatorCall, transfer_id: str, reason_text: str
) -> TransferAttributes:
    """Cancel a transfer whose write can no longer land (operators.cancel), audit the outcome
    (a refusal too, in a transaction of its own, then raised as it is); commits."""
    reason = f"cancelled by operator: {reason_text}"
    session, decimals = call.session, call.gateway.token_decimals()
    try:
        ended = await operators.cancel(session, call.gateway, transfer_id, reason, decimals)
    except InvalidState as exc:
        await session.rollback()
        if (transfer := await session.get(Transfer, transfer_id)) is not None:
            body = {"action": "cancel", "transfer_id": transfer_id}
            refusal = {"type": exc.slug, "status": exc.status, "detail": exc.detail}
            _audit_transfer(call, "admin.transfer.cancel", transfer, body, refusal, "failed")
            await session.commit()
        raise
    history = await transfers.history(session, transfer_id)
    attributes = TransferAttributes.of(ended, decimals, history)
    body = {"action": "cancel", "transfer_id": transfer_id, "reason": reason}
    _audit_transfer(call, "admin.transfer.cancel", ended, body, {"status": ended.status})
    await session.commit()
    return attributes


async def change_whitelist_entry(
    request: Request, project_id: int, action: str, actor: Actor
) -> McdWhitelistEntry:
    """suspend | activate | remove: a change already pending is driven to its end first, then
    this one is recorded (audited with ``actor``) and driven (each through
    WhitelistChangeWorkflow, after the commit). Asking for the state the entry is in changes
    nothing."""
    for _ in range(5):
        async with request.app.state.session_maker() as session:
            change = await entries.begin_change(session, project_id, action)
            if change is None:
                return await entries.entry(session, project_id)
            if change.recorded_now:  # ours (not an older pending one driven first)
                audit_action(
                    session, actor, f"admin.whitelist.{action}", project_id, None,
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
