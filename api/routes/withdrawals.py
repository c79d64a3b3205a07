"""A user's withdrawals to their own wallet (the profile's ``wallet_address``), by their own
access token with ``funds:withdraw`` (``api.callers.withdrawing_user``): accepted at once as
``pending`` with the amount held, sent on chain by WithdrawalWorkflow once nothing is left to
wait for. See docs/engine.md, "Withdrawals"."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from api.callers import Withdrawer
from api.common import Currency, derived_id, parse_amount
from api.deps import DecimalsDep, GatewayDep, SessionDep
from api.envelope import PageQuery, page, resource, single
from api.idempotency import IdempotencyKey, OptionalIdempotencyKey, write_context
from api.openapi import problems
from api.schemas.withdrawals import WithdrawalAttributes
from api.starts import signal_withdrawals, start, start_soon
from api.typed import Many, One
from core.errors import NotFound
from core.workflow_ids import withdrawal_workflow_id
from db.models.withdrawals import Withdrawal
from db.paging import page_of
from engine import withdrawal_queries, withdrawals
from engine.withdrawal_controls import Controls
from workflows.withdrawals import WithdrawalInput, WithdrawalWorkflow

router = APIRouter(prefix="/v1/withdrawals", tags=["withdrawals"])

_NOT_GRANTED = "`insufficient-scope` (funds:withdraw), `user-not-authorized-for-project`"
_PROBLEMS = problems(401, 429, s403=_NOT_GRANTED, subject="withdrawal of yours")
_ACCEPTED = problems(
    401, 429, s403=_NOT_GRANTED,
    s409="`idempotency-key-reused` / `idempotency-key-in-use`",
    s422="`validation-error`, `invalid-amount`, `wallet-address-required`, "
    "`amount-below-minimum`, `amount-limit-exceeded`, `daily-limit-exceeded`, "
    "`insufficient-funds`",
) | {202: {"description": "`withdrawal` with status `pending`"}}  # fmt: skip


WithdrawalStatus = Literal[
    "pending", "pending_onchain", "completed", "failed", "cancelled", "rejected"
]


class WithdrawalIn(BaseModel):
    currency: Currency
    amount: str = Field(examples=["12.5"], description="Decimal string in the currency's units")
    idempotency_key: IdempotencyKey = None


class WithdrawalCancelIn(BaseModel):
    reason: str | None = Field(None, max_length=200)
    idempotency_key: OptionalIdempotencyKey = None


@router.post("", status_code=202, response_model=One[WithdrawalAttributes], responses=_ACCEPTED)
async def create_withdrawal(
    payload: WithdrawalIn,
    user: Withdrawer,
    decimals: DecimalsDep,
    gateway: GatewayDep,
    request: Request,
) -> Any:
    """Withdraw MCC or MCD to your own wallet (the profile's `wallet_address`), held at once.
    Answered `pending`; it may wait for administrators' approvals, your wallet's cooling-off or
    the outflow breaker, then it is sent on chain once."""
    amount = parse_amount(payload.amount, decimals, payload.currency)
    currency = payload.currency
    settings = request.app.state.settings.withdrawals
    controls = Controls.of(settings, currency, decimals.of(currency))
    async with write_context(
        request, user, operation="withdrawals.create", user_uid=user.uid
    ) as ctx:
        withdrawal_id = derived_id("wd", ctx.workflow_id("withdrawal"))
        order = withdrawals.NewWithdrawal(
            withdrawal_id=withdrawal_id, user_uid=user.uid, currency=currency, amount=amount,
            project_id=user.project_id, client_id=user.client_id,
            workflow_id=withdrawal_workflow_id(withdrawal_id), audit_id=ctx.audit_id,
        )  # fmt: skip
        now = datetime.now(UTC)
        try:
            w = await withdrawals.create(ctx.session, order, controls, gateway, decimals, now)
        except withdrawals.AlreadyRecorded:
            await ctx.replay_if_done()
            raise
        shown = WithdrawalAttributes.of(w, decimals, 0)
        response = ctx.respond(202, single("withdrawal", w.id, shown), audit_status="pending")
    started = start(
        request,
        WithdrawalWorkflow.run,
        WithdrawalInput(withdrawal_id=w.id),
        workflow_id=withdrawal_workflow_id(w.id),
        attributes=withdrawals.search_attributes(w, "pending"),
        allow_retry_after_failure=True,
    )
    start_soon(request, started, f"start {withdrawal_workflow_id(w.id)}")
    return response


async def _own(session: SessionDep, user: Withdrawer, withdrawal_id: str) -> Withdrawal:
    w = await session.get(Withdrawal, withdrawal_id)
    if w is None or not withdrawal_queries.visible_to(w, user.uid, user.project_id):
        raise NotFound(f"Withdrawal {withdrawal_id} not found")
    return w


@router.get("", response_model=Many[WithdrawalAttributes], responses=_PROBLEMS)
async def list_withdrawals(
    user: Withdrawer,
    session: SessionDep,
    decimals: DecimalsDep,
    paging: PageQuery,
    status: WithdrawalStatus | None = None,
) -> Any:
    """Your withdrawals, newest first (a project's app sees those it made); filter by status."""
    statement = withdrawal_queries.of_user(user.uid, user.project_id, status or "")
    rows, total = await page_of(session, statement, withdrawal_queries.NEWEST_FIRST, paging)
    counts = await withdrawal_queries.approvals_of(session, [w.id for w in rows])
    items = [
        resource("withdrawal", w.id, WithdrawalAttributes.of(w, decimals, counts[w.id]))
        for w in rows
    ]
    return page(items, total, paging)


@router.get("/{withdrawal_id}", response_model=One[WithdrawalAttributes], responses=_PROBLEMS)
async def get_withdrawal(
    withdrawal_id: str, user: Withdrawer, session: SessionDep, decimals: DecimalsDep
) -> Any:
    """One of your withdrawals, with its state history."""
    w = await _own(session, user, withdrawal_id)
    given = await withdrawals.approvals(session, w.id)
    history = await withdrawals.history(session, w.id)
    return single("withdrawal", w.id, WithdrawalAttributes.of(w, decimals, given, history))


@router.post(
    "/{withdrawal_id}/cancel",
    response_model=One[WithdrawalAttributes],
    responses=_PROBLEMS
    | problems(s409="`invalid-state`: no longer pending (being sent: only a retry)"),
)
async def cancel_withdrawal(
    withdrawal_id: str,
    user: Withdrawer,
    decimals: DecimalsDep,
    request: Request,
    payload: WithdrawalCancelIn | None = None,
) -> Any:
    """Cancel one of your withdrawals while it is `pending` (not yet being sent).
    The held amount is available again; once it is being sent, only an operator's retry."""
    async with write_context(
        request, user, operation="withdrawals.cancel", user_uid=user.uid, key_optional=True
    ) as ctx:
        w = await _own(ctx.session, user, withdrawal_id)
        reason = (payload.reason if payload else None) or "cancelled by the user"
        ended = await withdrawals.cancel(ctx.session, w.id, reason, decimals)
        history = await withdrawals.history(ctx.session, w.id)
        given = await withdrawals.approvals(ctx.session, w.id)
        shown = WithdrawalAttributes.of(ended, decimals, given, history)
        response = ctx.respond(200, single("withdrawal", w.id, shown))
    signal_withdrawals(request, [ended.workflow_id or withdrawal_workflow_id(w.id)], "cancelled")
    return response
