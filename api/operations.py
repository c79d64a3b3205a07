"""An operator's actions that take more than one step: each calls its service, audits the
action (``events.audit.audit_action``), commits, and starts, waits for or tells the workflow it
needs. The admin API (``api/routes/admin_transfers.py``, ``admin_whitelist.py``,
``admin_withdrawals.py``) and the operator console (``api/console/operations.py``,
``withdrawals.py``) call these same functions, so the rules, the audit and the workflows are
written once, beside ``api.starts``.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError
from temporalio.common import TypedSearchAttributes
from temporalio.exceptions import ApplicationError

from api.schemas.transfers import RetriedWrite, RetryAttributes, TransferAttributes
from api.schemas.withdrawals import (
    BreakerAttributes,
    WithdrawalAttributes,
    WithdrawalRetryAttributes,
)
from api.starts import finished, signal_withdrawals, start, start_or_join
from chain.gateway import ChainGateway
from core.errors import DomainError, InvalidState, NotFound, ServiceUnavailable
from core.workflow_ids import (
    transfer_retry_workflow_id,
    whitelist_change_workflow_id,
    withdrawal_retry_workflow_id,
    withdrawal_workflow_id,
)
from db.models.engine import Transfer
from db.models.onboarding import McdWhitelistEntry
from db.models.withdrawals import Withdrawal
from engine import (
    operators,
    transfers,
    withdrawal_controls,
    withdrawal_decisions,
    withdrawals,
)
from events.audit import Actor, audit_action
from onboarding import whitelist_entries as entries
from workflows.transfers import TransferInput, TransferWorkflow
from workflows.whitelist import WhitelistChangeInput, WhitelistChangeWorkflow
from workflows.withdrawals import WithdrawalInput, WithdrawalWorkflow

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


def _token() -> str:
    """A fresh part of a restarted workflow's id: each deliberate restart is a run of its own."""
    return uuid.uuid4().hex[:8]


async def _restart_if_gone(
    request: Request,
    workflow_id: str | None,
    retry_id: str,
    run: Any,
    arg: Any,
    attributes: TypedSearchAttributes,
) -> tuple[str | None, bool]:
    """(the workflow driving the record, whether it was restarted now under ``retry_id``).
    Nothing to commit first: the record is durable, only its workflow may be gone."""
    if await _running(request, workflow_id):
        return workflow_id, False
    if not await start(request, run, arg, workflow_id=retry_id, attributes=attributes):
        raise ServiceUnavailable(
            "The workflow engine is unreachable; retry shortly", headers={"Retry-After": "5"}
        )
    return retry_id, True


async def retry_transfer(
    call: OperatorCall, transfer_id: str, reason: str | None
) -> RetryAttributes:
    """Re-check the chain (operators.retry), restart the workflow if it is gone, audit;
    commits."""
    checked = await operators.retry(call.session, call.gateway, transfer_id)
    transfer = checked.transfer
    workflow_id, restarted = await _restart_if_gone(
        call.request, transfer.workflow_id, transfer_retry_workflow_id(transfer.id, _token()),
        TransferWorkflow.run, TransferInput(transfer_id=transfer.id),
        transfers.search_attributes(transfer, transfer.status),
    )  # fmt: skip
    response = RetryAttributes.model_validate(
        {
            "transfer_id": transfer.id,
            "status": transfer.status,
            "chain_write": checked.chain_write,
            "workflow_id": workflow_id,
            "workflow_restarted": restarted,
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


# -- withdrawals ------------------------------------------------------------------------------


async def withdrawal_view(
    session: AsyncSession, gateway: ChainGateway, w: Withdrawal
) -> WithdrawalAttributes:
    """A withdrawal as administrators see it: its history, the decisions on it, its write."""
    decimals = gateway.token_decimals()
    history = await withdrawals.history(session, w.id)
    approvals = await withdrawals.approvals(session, w.id)
    shown = WithdrawalAttributes.of(w, decimals, approvals, history)
    write = await operators.write_view(gateway, w.op_key)
    return shown.with_admin_view(await withdrawal_decisions.decisions(session, w.id), write)


async def _withdrawal_action(
    call: OperatorCall,
    operation: str,
    withdrawal_id: str,
    body: dict[str, Any],
    act: Callable[[], Awaitable[Withdrawal]],
    told: str,
) -> WithdrawalAttributes:
    """An administrator's act on one withdrawal: done, audited with their uid and reason (a
    refusal too, in a transaction of its own, then raised as it is), committed, and its
    workflow told."""
    session = call.session
    try:
        w = await act()
    except DomainError as exc:
        await session.rollback()
        found = await session.get(Withdrawal, withdrawal_id)
        refusal = {"type": exc.slug, "status": exc.status, "detail": exc.detail}
        audit_action(
            session, call.actor, operation, found.project_id if found else None,
            found.user_uid if found else None, body, refusal, "failed",
        )  # fmt: skip
        await session.commit()
        raise
    shown = await withdrawal_view(session, call.gateway, w)
    audit_action(
        session, call.actor, operation, w.project_id, w.user_uid, body,
        {"status": w.status, "approvals": shown.approvals},
    )  # fmt: skip
    await session.commit()
    signal_withdrawals(call.request, [w.workflow_id or withdrawal_workflow_id(w.id)], told)
    return shown


async def decide_withdrawal(
    call: OperatorCall, withdrawal_id: str, decision: str, reason: str
) -> WithdrawalAttributes:
    """approve | reject (engine.withdrawal_decisions.decide), audited
    ``admin.withdrawal.approve`` / ``.reject`` with the administrator's reason; commits."""
    decimals = call.gateway.token_decimals()
    body = {"action": decision, "withdrawal_id": withdrawal_id, "reason": reason}

    async def act() -> Withdrawal:
        return await withdrawal_decisions.decide(
            call.session, withdrawal_id, call.actor.uid, decision, reason, decimals
        )

    told = "approved" if decision == "approve" else "rejected"
    return await _withdrawal_action(
        call, f"admin.withdrawal.{decision}", withdrawal_id, body, act, told
    )


async def cancel_withdrawal(
    call: OperatorCall, withdrawal_id: str, reason_text: str
) -> WithdrawalAttributes:
    """An operator's cancel of a withdrawal not yet claimed for its chain write, audited
    ``admin.withdrawal.cancel``; commits."""
    reason = f"cancelled by operator: {reason_text}"
    decimals = call.gateway.token_decimals()
    body = {"action": "cancel", "withdrawal_id": withdrawal_id, "reason": reason}

    async def act() -> Withdrawal:
        return await withdrawals.cancel(call.session, withdrawal_id, reason, decimals)

    return await _withdrawal_action(
        call, "admin.withdrawal.cancel", withdrawal_id, body, act, "cancelled"
    )


async def retry_withdrawal(
    call: OperatorCall, withdrawal_id: str, reason: str | None
) -> WithdrawalRetryAttributes:
    """A withdrawal still open: its chain write re-checked (the same bytes re-sent, never a
    second write) and its workflow restarted if it is gone; audited, commits."""
    w = await call.session.get(Withdrawal, withdrawal_id)
    if w is None:
        raise NotFound(f"Withdrawal {withdrawal_id} not found")
    if w.status not in ("pending", "pending_onchain"):
        raise InvalidState(f"Withdrawal {withdrawal_id} is {w.status}; nothing to retry")
    chain = None
    if w.status == "pending_onchain" and w.op_key is not None:
        chain = await operators.recheck(call.gateway, w.op_key)
    workflow_id, restarted = await _restart_if_gone(
        call.request, w.workflow_id, withdrawal_retry_workflow_id(w.id, _token()),
        WithdrawalWorkflow.run, WithdrawalInput(withdrawal_id=w.id),
        withdrawals.search_attributes(w, w.status),
    )  # fmt: skip
    if restarted:  # the run that decisions and cancels are told of from now on
        w.workflow_id = workflow_id
    response = WithdrawalRetryAttributes(
        withdrawal_id=w.id, status=w.status, chain_write=chain and RetriedWrite(**chain),
        workflow_id=workflow_id, workflow_restarted=restarted,
    )  # fmt: skip
    body = {"action": "retry", "withdrawal_id": w.id, "reason": reason}
    audit_action(
        call.session, call.actor, "admin.withdrawal.retry", w.project_id, w.user_uid, body,
        response.model_dump(mode="json"),
    )  # fmt: skip
    await call.session.commit()
    return response


async def reset_withdrawal_breaker(call: OperatorCall, reason: str) -> BreakerAttributes:
    """Close the tripped breaker (engine.withdrawal_controls.reset_breaker): the withdrawals it
    held go on; audited ``admin.withdrawal.breaker_reset``; commits, then tells them."""
    released = await withdrawal_controls.reset_breaker(
        call.session, call.actor.uid, reason, datetime.now(UTC)
    )
    row = await withdrawal_controls.breaker(call.session)
    shown = BreakerAttributes.of(row, released.withdrawal_ids)
    audit_action(
        call.session, call.actor, "admin.withdrawal.breaker_reset", None, None,
        {"action": "reset", "reason": reason}, {"released": released.withdrawal_ids},
    )  # fmt: skip
    await call.session.commit()
    signal_withdrawals(call.request, released.workflow_ids, "released")
    return shown
