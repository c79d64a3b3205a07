"""Fund locks (two-phase holds with a durable expiry timer) and transfers between a project's
own users. See docs/engine.md."""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Security
from pydantic import BaseModel, Field
from sqlalchemy import select
from temporalio.client import Client
from temporalio.common import TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from api.auth.consent import require_user_authorized
from api.auth.deps import current_project
from api.auth.principal import ProjectPrincipal
from api.deps import SessionDep, mint_decimals
from api.envelope import PageQuery, fetch_page, page, resource, single
from api.errors import invalid_field
from api.idempotency import (
    IdempotencyKey,
    WriteContext,
    expired_key,
    replay_or_conflict,
    write_context,
)
from api.metrics import WORKFLOW_STARTS
from api.openapi import problems
from api.typed import Attributes, Many, One
from chain.decimals import TokenDecimals
from core.errors import DomainError
from core.money import InvalidAmount
from core.queues import MAIN_TASK_QUEUE
from db.models.access import IdempotencyRecord
from db.models.ledger import Hold
from engine import locks, search
from engine.ids import lock_workflow_id
from workflows.funds import FundLockInput, FundLockWorkflow

log = logging.getLogger("mccgw.engine.api")

router = APIRouter(prefix="/v1/funds", tags=["funds"])

FundsManage = Annotated[ProjectPrincipal, Security(current_project, scopes=["funds:manage"])]
FundsRead = Annotated[ProjectPrincipal, Security(current_project, scopes=["funds:read"])]

Currency = Literal["MCC", "MCD"]

PROBLEMS = problems(
    429,
    caller="project-for-user",
    s409="`idempotency-key-reused` / `idempotency-key-in-use` / `invalid-state`",
    s422="`validation-error`, `invalid-amount`, `insufficient-funds`, "
    "`amount-limit-exceeded`, `daily-limit-exceeded`",
)


# ------------------------------------------------------------------ shared helpers


def decimals(request: Request) -> TokenDecimals:
    """Each mint's own decimals, read from the mints (api.deps.mint_decimals)."""
    return mint_decimals(request)


def task_queue(request: Request) -> str:
    """The engine's task queue (overridable on app.state for tests and benchmarks)."""
    return str(getattr(request.app.state, "engine_task_queue", MAIN_TASK_QUEUE))


def parse_amount(text: str, request: Request, currency: str, field: str = "amount") -> int:
    """``text`` in base units of ``currency``'s own mint."""
    try:
        return decimals(request).parse(text, currency)
    except InvalidAmount as exc:
        raise invalid_field(field, str(exc), slug="invalid-amount") from exc


def derived_id(prefix: str, workflow_id: str) -> str:
    """A record id derived from the (scope, idempotency key) workflow id."""
    return f"{prefix}_{hashlib.sha256(workflow_id.encode()).hexdigest()[:32]}"


async def start_workflow(
    request: Request,
    run: Any,
    arg: Any,
    *,
    workflow_id: str,
    attributes: TypedSearchAttributes,
    name: str,
    allow_retry_after_failure: bool = False,
) -> bool:
    """Start idempotently by id, AFTER the record committed: an existing run with this id (a
    retried request) is kept. A failure is logged, not raised: the record is durable and the
    recovery sweep (engine.recovery) starts its workflow later, so the answer stays 2xx.

    Why after the commit: starting inside the transaction held the account and limit rows
    locked across a Temporal round trip, serialising a project's requests."""
    client: Client = request.app.state.temporal
    try:
        await client.start_workflow(
            run,
            arg,
            id=workflow_id,
            task_queue=task_queue(request),
            search_attributes=attributes,
            id_reuse_policy=(
                WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY
                if allow_retry_after_failure
                else WorkflowIDReusePolicy.REJECT_DUPLICATE
            ),
        )
    except WorkflowAlreadyStartedError:
        return True
    except Exception as exc:
        log.warning("could not start %s %s (the recovery sweep will): %r", name, workflow_id, exc)
        return False
    WORKFLOW_STARTS.labels(workflow=name).inc()
    return True


async def signal_lock(request: Request, lock_id: str, resolution: str) -> None:
    """Best effort: the lock's timer would find the hold resolved anyway."""
    client: Client = request.app.state.temporal
    try:
        handle = client.get_workflow_handle(lock_workflow_id(lock_id))
        await handle.signal(FundLockWorkflow.resolved, resolution)
    except Exception as exc:
        log.info("could not signal lock %s (%r); its timer will find it resolved", lock_id, exc)


async def replay_if_done(ctx: WriteContext) -> None:
    """The derived record already exists: this key was executed before (Redis forgot its
    marker, or the key is being reused). Answer with the stored response only when it is
    still live and the request matches it; a key whose answer has expired (or was swept) is
    spent: 409, never an old, unrelated answer."""
    record = await ctx.session.scalar(
        select(IdempotencyRecord).where(
            IdempotencyRecord.scope == ctx.scope, IdempotencyRecord.key == ctx.key
        )
    )
    if record is not None and record.expires_at > datetime.now(UTC):
        raise replay_or_conflict(record, ctx.request_hash)
    # The derived record is committed (it is visible), and its answer was committed with it:
    # no stored answer means an expired one, never a request still in flight.
    raise expired_key()


# ------------------------------------------------------------------ bodies

# The longest a lock may run (docs/engine.md): a later expires_at is a 422, never a timer that
# outlives every operator's memory of why the funds are held.
MAX_LOCK_DURATION = timedelta(days=90)


def _expiry_invalid(message: str) -> DomainError:
    return invalid_field("expires_at", message, f"expires_at {message}")


def lock_expiry(expires_at: datetime) -> datetime:
    """``expires_at`` in UTC: with an offset, in the future, at most MAX_LOCK_DURATION away."""
    if expires_at.tzinfo is None:
        raise _expiry_invalid("needs a UTC offset (e.g. 2030-01-01T00:00:00Z)")
    try:
        in_utc = expires_at.astimezone(UTC)
    except OverflowError as exc:  # e.g. 9999-12-31T23:59:59-14:00
        raise _expiry_invalid("is out of range") from exc
    now = datetime.now(UTC)
    if in_utc <= now:
        raise _expiry_invalid("must be in the future")
    if in_utc > now + MAX_LOCK_DURATION:
        raise _expiry_invalid(f"must be within {MAX_LOCK_DURATION.days} days from now")
    return in_utc


class LockIn(BaseModel):
    user_uid: str = Field(min_length=1, max_length=100)
    currency: Currency = Field(examples=["MCC"])
    amount: str = Field(examples=["12.5"], description="Decimal string, > 0, at most 9 decimals")
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


# ------------------------------------------------------------------ routes


@router.post(
    "/lock",
    status_code=201,
    response_model=One[LockAttributes],
    responses={**PROBLEMS, 201: {"description": "`fund_lock` with status `locked`"}},
)
async def lock_funds(payload: LockIn, project: FundsManage, request: Request) -> Any:
    """Lock (reserve) a user's funds until unlocked, settled or expired."""
    amount = parse_amount(payload.amount, request, payload.currency)
    expires_at = lock_expiry(payload.expires_at)
    async with write_context(
        request, project, operation="funds.lock", user_uid=payload.user_uid
    ) as ctx:
        await require_user_authorized(ctx.session, project, payload.user_uid, "funds:manage")
        lock_id = derived_id("lk", ctx.workflow_id("funds-lock"))
        if await ctx.session.get(Hold, lock_id) is not None:
            await replay_if_done(ctx)
        hold, balances = await locks.lock(
            ctx.session,
            **payload.model_dump(include={"user_uid", "currency", "reason", "reference_id"}),
            lock_id=lock_id,
            project_id=project.project_id,
            amount=amount,
            expires_at=expires_at,
            decimals=decimals(request),
        )
        attributes = locks.lock_attributes(hold, decimals(request), balances.available)
        response = ctx.respond(201, single("fund_lock", lock_id, attributes))
    await start_workflow(
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
        name="FundLockWorkflow",
    )
    return response


@router.post("/unlock", response_model=One[LockAttributes], responses=PROBLEMS)
async def unlock_funds(payload: UnlockIn, project: FundsManage, request: Request) -> Any:
    """Unlock a fund lock of this project (exactly once; 409 if no longer locked)."""
    async with write_context(request, project, operation="funds.unlock") as ctx:
        hold, balances = await locks.unlock(
            ctx.session,
            lock_id=payload.lock_id,
            project_id=project.project_id,
            reason=payload.reason,
            decimals=decimals(request),
        )
        ctx.audit.user_uid = hold.user_uid
        attributes = locks.lock_attributes(hold, decimals(request), balances.available)
        attributes["unlock_reason"] = payload.reason
        response = ctx.respond(200, single("fund_lock", hold.id, attributes))
    await signal_lock(request, hold.id, "unlocked")
    return response


@router.get(
    "/locked/{user_uid}",
    response_model=Many[LockAttributes],
    response_model_exclude_unset=True,  # a listed lock has no available_balance: not even null
    responses=PROBLEMS,
)
async def locked_funds(
    user_uid: str, project: FundsRead, session: SessionDep, request: Request, paging: PageQuery
) -> Any:
    """Active fund locks this project holds on a user (paged)."""
    await require_user_authorized(session, project, user_uid, "funds:read")
    where = (
        (Hold.user_uid == user_uid)
        & (Hold.project_id == project.project_id)
        & (Hold.status == "active")
    )
    rows, total = await fetch_page(session, Hold, where, (Hold.created_at, Hold.id), paging)
    items = [resource("fund_lock", h.id, locks.lock_attributes(h, decimals(request))) for h in rows]
    return page(items, total, paging)
