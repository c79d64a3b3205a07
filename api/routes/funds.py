"""Fund locks (two-phase holds with a durable expiry timer) and transfers between a project's
own users. See docs/engine.md."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Self

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from access.callers import project
from api.auth.consent import require_user_authorized
from api.auth.declaration import Callers
from api.auth.principal import ProjectPrincipal
from api.common import MONEY_PROBLEMS, Currency, derived_id, parse_amount
from api.deps import DecimalsDep, SessionDep
from api.envelope import PageQuery, page, resource, single
from api.idempotency import IdempotencyKey, write_context
from api.starts import signal_lock, start
from api.typed import Attributes, Many, One
from chain.decimals import TokenDecimals
from core.time import iso
from core.workflow_ids import lock_workflow_id
from db.models.ledger import Hold
from db.paging import page_of
from engine import locks, search
from workflows.funds import FundLockInput, FundLockWorkflow

router = APIRouter(prefix="/v1/funds", tags=["funds"])

FundsManage = Annotated[ProjectPrincipal, Depends(Callers(project("funds:manage")))]
FundsRead = Annotated[ProjectPrincipal, Depends(Callers(project("funds:read")))]


# ------------------------------------------------------------------ bodies


class LockIn(BaseModel):
    user_uid: str = Field(min_length=1, max_length=100)
    currency: Currency = Field(examples=["MCC"])
    amount: str = Field(
        examples=["12.5"],
        description="Decimal string, > 0, at most as many decimals as the currency's mint has",
    )
    reason: str = Field(min_length=1, max_length=100, examples=["auction_bid"])
    reference_id: str | None = Field(None, max_length=200, examples=["auction-42"])
    expires_at: datetime = Field(description="When the lock ends by itself (future, with offset)")
    idempotency_key: IdempotencyKey = None


class UnlockIn(BaseModel):
    lock_id: str = Field(min_length=1, max_length=64)
    reason: str = Field(min_length=1, max_length=100, examples=["outbid"])
    idempotency_key: str | None = None


class LockAttributes(Attributes):
    status: str = Field(description="locked, unlocked, settled or expired")
    user_uid: str
    currency: Currency
    amount: str = Field(description="Decimal string")
    reason: str
    reference_id: str | None
    locked_until: str | None
    available_balance: str | None = Field(
        None, description="After a lock or unlock only: the user's available balance"
    )
    unlock_reason: str | None = Field(None, description="After an unlock only")

    @classmethod
    def of(cls, hold: Hold, decimals: TokenDecimals, available: int | None = None) -> Self:
        """The lock; with ``available``, the user's available balance after it too."""
        shown = cls(
            status=locks.LOCK_STATUS.get(hold.status, hold.status),
            user_uid=hold.user_uid,
            currency=hold.currency,
            amount=decimals.format(hold.amount, hold.currency),
            reason=hold.reason,
            reference_id=hold.reference_id,
            locked_until=iso(hold.expires_at),
        )
        if available is not None:
            shown.available_balance = decimals.format(available, hold.currency)
        return shown


# ------------------------------------------------------------------ routes


@router.post(
    "/lock",
    status_code=201,
    response_model=One[LockAttributes],
    responses={**MONEY_PROBLEMS, 201: {"description": "`fund_lock` with status `locked`"}},
)
async def lock_funds(
    payload: LockIn, project: FundsManage, decimals: DecimalsDep, request: Request
) -> Any:
    """Lock (reserve) a user's funds until unlocked, settled or expired."""
    amount = parse_amount(payload.amount, decimals, payload.currency)
    expires_at = locks.lock_expiry(payload.expires_at)
    async with write_context(
        request, project, operation="funds.lock", user_uid=payload.user_uid
    ) as ctx:
        await require_user_authorized(ctx.session, project, payload.user_uid, "funds:manage")
        lock_id = derived_id("lk", ctx.workflow_id("funds-lock"))
        try:
            hold, balances = await locks.lock(
                ctx.session,
                **payload.model_dump(include={"user_uid", "currency", "reason", "reference_id"}),
                lock_id=lock_id,
                project_id=project.project_id,
                amount=amount,
                expires_at=expires_at,
                decimals=decimals,
            )
        except locks.AlreadyLocked:
            await ctx.replay_if_done()
        attributes = LockAttributes.of(hold, decimals, balances.available)
        response = ctx.respond(201, single("fund_lock", lock_id, attributes))
    await start(
        request,
        FundLockWorkflow.run,
        FundLockInput(lock_id=lock_id, expires_at=expires_at.isoformat()),
        workflow_id=lock_workflow_id(lock_id),
        attributes=search.attributes(
            project_id=project.project_id,
            user_uid=payload.user_uid,
            operation="fund_lock",
            status="locked",
            currency=payload.currency,
        ),
    )
    return response


@router.post("/unlock", response_model=One[LockAttributes], responses=MONEY_PROBLEMS)
async def unlock_funds(
    payload: UnlockIn, project: FundsManage, decimals: DecimalsDep, request: Request
) -> Any:
    """Unlock a fund lock of this project (exactly once; 409 if no longer locked)."""
    async with write_context(request, project, operation="funds.unlock") as ctx:
        hold, balances = await locks.unlock(
            ctx.session,
            lock_id=payload.lock_id,
            project_id=project.project_id,
            reason=payload.reason,
            decimals=decimals,
        )
        ctx.audit.user_uid = hold.user_uid
        attributes = LockAttributes.of(hold, decimals, balances.available)
        attributes.unlock_reason = payload.reason
        response = ctx.respond(200, single("fund_lock", hold.id, attributes))
    await signal_lock(request, hold.id, "unlocked")
    return response


@router.get(
    "/locked/{user_uid}",
    response_model=Many[LockAttributes],
    response_model_exclude_unset=True,  # a listed lock has no available_balance: not even null
    responses=MONEY_PROBLEMS,
)
async def locked_funds(
    user_uid: str,
    project: FundsRead,
    session: SessionDep,
    decimals: DecimalsDep,
    paging: PageQuery,
) -> Any:
    """Active fund locks this project holds on a user (paged)."""
    await require_user_authorized(session, project, user_uid, "funds:read")
    held = select(Hold).where(
        Hold.user_uid == user_uid, Hold.project_id == project.project_id, Hold.status == "active"
    )
    rows, total = await page_of(session, held, (Hold.created_at, Hold.id), paging)
    items = [resource("fund_lock", h.id, LockAttributes.of(h, decimals)) for h in rows]
    return page(items, total, paging)
