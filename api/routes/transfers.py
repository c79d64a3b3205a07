"""Transfer requests and transfers between a project's own users: accepted at once as
``pending`` (funds reserved), settled on chain by TransferWorkflow. See docs/engine.md."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field, StrictBool

from access.callers import project
from api.auth.consent import require_user_authorized
from api.auth.declaration import Callers
from api.auth.principal import ProjectPrincipal
from api.common import MONEY_PROBLEMS, Currency, derived_id, parse_amount
from api.deps import DecimalsDep, SessionDep
from api.envelope import single
from api.idempotency import write_context
from api.schemas.transfers import TransferAttributes
from api.starts import signal_lock, start, start_soon
from api.typed import One
from chain.decimals import TokenDecimals
from core.errors import NotFound
from core.workflow_ids import transfer_workflow_id
from db.models.engine import Transfer
from engine import transfers
from workflows.transfers import TransferInput, TransferWorkflow

router = APIRouter(tags=["transfers"])

TransferWrite = Annotated[ProjectPrincipal, Depends(Callers(project("transfer:write")))]
TransferRead = Annotated[ProjectPrincipal, Depends(Callers(project("transfer:read")))]
FundsTransfer = Annotated[ProjectPrincipal, Depends(Callers(project("funds:transfer")))]

# The two transfer requests answer 202 with the pending transfer (it settles on chain later).
_ACCEPTED = MONEY_PROBLEMS | {202: {"description": "`transfer` with status `pending`"}}


class TransferRequestIn(BaseModel):
    transfer_type: str = Field(min_length=1, max_length=64, examples=["auction_settlement"])
    from_uid: str = Field(min_length=1, max_length=100)
    to_uid: str = Field(min_length=1, max_length=100)
    currency: Currency
    amount: str = Field(examples=["12.5"])
    reference: dict[str, Any] = Field(
        default_factory=dict,
        description="Identifiers of the business object; `lock_id` settles that fund lock",
        examples=[{"auction_id": "42", "lock_id": "lk_..."}],
    )
    requires_onchain: StrictBool = Field(
        True, description="Recorded; every transfer settles on chain (the ledger mirrors custody)"
    )
    idempotency_key: str | None = None


class FundsTransferIn(BaseModel):
    from_uid: str = Field(min_length=1, max_length=100)
    to_uid: str = Field(min_length=1, max_length=100)
    currency: Currency
    amount: str = Field(examples=["1.5"])
    reason: str | None = Field(None, max_length=100, examples=["in_game_trade"])
    reference: dict[str, Any] = Field(default_factory=dict)
    idempotency_key: str | None = None


class CancelIn(BaseModel):
    reason: str | None = Field(None, max_length=200)
    idempotency_key: str | None = None


async def _accept(
    request: Request,
    decimals: TokenDecimals,
    project: ProjectPrincipal,
    order: TransferRequestIn,
    operation: str,
    scope: str,
    recipient_consents: bool = False,
) -> Any:
    """Both transfer routes: in the one commit, the sender's (and, when ``recipient_consents``,
    the recipient's) authorization of this project, then the funds reserved and the transfer
    recorded as ``pending``; 202, and its workflow starts after the commit."""
    amount = parse_amount(order.amount, decimals, order.currency)
    async with write_context(request, project, operation=operation, user_uid=order.from_uid) as ctx:
        await require_user_authorized(ctx.session, project, order.from_uid, scope)
        if recipient_consents:
            await require_user_authorized(ctx.session, project, order.to_uid)
        transfer_id = derived_id("tr", ctx.workflow_id("transfer"))
        new = transfers.NewTransfer(
            transfer_id=transfer_id,
            project_id=project.project_id,
            transfer_type=order.transfer_type,
            from_uid=order.from_uid,
            to_uid=order.to_uid,
            currency=order.currency,
            amount=amount,
            reference=order.reference,
            requires_onchain=order.requires_onchain,
            workflow_id=transfer_workflow_id(transfer_id),
            audit_id=ctx.audit_id,
        )
        try:
            transfer = await transfers.create(ctx.session, new, decimals)
        except transfers.AlreadyRecorded:
            await ctx.replay_if_done()
            raise
        attributes = TransferAttributes.of(transfer, decimals)
        response = ctx.respond(
            202, single("transfer", transfer.id, attributes), audit_status="pending"
        )
    _start_soon(request, transfer)
    return response


def _start_soon(request: Request, transfer: Transfer) -> None:
    """After the commit, without holding up the answer: start the transfer's workflow and tell
    a settled lock's timer (see api.after_commit for why nothing is lost if this never runs)."""
    lock_id = transfer.lock_id

    async def settle_lock() -> None:
        if lock_id is not None:
            await signal_lock(request, lock_id, "settled")

    workflow_id = transfer_workflow_id(transfer.id)
    started = start(
        request,
        TransferWorkflow.run,
        TransferInput(transfer_id=transfer.id),
        workflow_id=workflow_id,
        attributes=transfers.search_attributes(transfer, "pending"),
        allow_retry_after_failure=True,
    )
    start_soon(request, started, f"start {workflow_id}", then=settle_lock)


@router.post(
    "/v1/transfer/request",
    status_code=202,
    response_model=One[TransferAttributes],
    responses=_ACCEPTED,
)
async def request_transfer(
    payload: TransferRequestIn, project: TransferWrite, decimals: DecimalsDep, request: Request
) -> Any:
    """Request a transfer from a user who authorized this project; settles on chain."""
    return await _accept(request, decimals, project, payload, "transfer.request", "transfer:write")


@router.post(
    "/v1/funds/transfer",
    status_code=202,
    response_model=One[TransferAttributes],
    responses=_ACCEPTED,
)
async def funds_transfer(
    payload: FundsTransferIn, project: FundsTransfer, decimals: DecimalsDep, request: Request
) -> Any:
    """Move funds between two users of this project (both must have authorized it)."""
    reference = dict(payload.reference)
    if payload.reason:
        reference.setdefault("reason", payload.reason)
    order = TransferRequestIn(
        **payload.model_dump(include={"from_uid", "to_uid", "currency", "amount"}),
        transfer_type="project_internal",
        reference=reference,
    )
    return await _accept(
        request,
        decimals,
        project,
        order,
        "funds.transfer",
        "funds:transfer",
        recipient_consents=True,
    )


async def _own(session: SessionDep, project: ProjectPrincipal, transfer_id: str) -> Transfer:
    transfer = await session.get(Transfer, transfer_id)
    if transfer is None or transfer.project_id != project.project_id:
        raise NotFound(f"Transfer {transfer_id} not found")
    return transfer


@router.get(
    "/v1/transfer/{transfer_id}", response_model=One[TransferAttributes], responses=MONEY_PROBLEMS
)
async def get_transfer(
    transfer_id: str, project: TransferRead, session: SessionDep, decimals: DecimalsDep
) -> Any:
    """A transfer of this project with its state history."""
    transfer = await _own(session, project, transfer_id)
    history = await transfers.history(session, transfer_id)
    return single("transfer", transfer.id, TransferAttributes.of(transfer, decimals, history))


@router.post(
    "/v1/transfer/{transfer_id}/cancel",
    response_model=One[TransferAttributes],
    responses=MONEY_PROBLEMS,
)
async def cancel_transfer(
    transfer_id: str,
    project: TransferWrite,
    decimals: DecimalsDep,
    request: Request,
    payload: CancelIn | None = None,
) -> Any:
    """Cancel a transfer while it is still `pending` (409 `invalid-state` afterwards)."""
    async with write_context(request, project, operation="transfer.cancel") as ctx:
        transfer = await _own(ctx.session, project, transfer_id)
        ctx.audit.user_uid = transfer.from_uid
        reason = (payload.reason if payload else None) or "cancelled by the project"
        ended = await transfers.cancel_pending(ctx.session, transfer_id, reason, decimals=decimals)
        history = await transfers.history(ctx.session, transfer_id)
        return ctx.respond(
            200,
            single("transfer", ended.id, TransferAttributes.of(ended, decimals, history)),
        )
