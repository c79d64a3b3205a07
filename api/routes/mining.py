"""Mining activity submission (single and batch), activity status, and mining records."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Security
from fastapi.security import SecurityScopes
from pydantic import BaseModel, Field, StrictInt, StrictStr, ValidationError
from redis.asyncio import Redis
from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.client import Client
from temporalio.exceptions import WorkflowAlreadyStartedError

from api.auth.deps import current_project, current_user, oauth2_scheme, project_id_header
from api.auth.principal import ProjectPrincipal, UserPrincipal
from api.deps import SessionDep, token_decimals
from api.envelope import Envelope, PageParams, page, resource, single
from api.idempotency import write_context
from api.routes.webhooks import start_pump, task_queue
from core.config import Settings
from core.errors import DomainError, NotFound, ServiceUnavailable
from core.money import to_decimal_string
from db.base import table_of
from db.models.access import OAuthConsent
from db.models.mining import MiningActivity
from db.models.webhooks import WebhookEndpoint
from engine import limits
from mining.canonical import canonical_activity
from mining.reward import reward_units
from organizations.bonus import multipliers
from workflows.mining import MiningActivityWorkflow, MiningInput

log = logging.getLogger("mccgw.mining")

router = APIRouter(prefix="/v1/mining", tags=["mining"])

MAX_BATCH = 100
ProjectWrite = Annotated[ProjectPrincipal, Security(current_project, scopes=["mining:write"])]
ProjectRead = Annotated[ProjectPrincipal, Security(current_project, scopes=["mining:read"])]

_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Credentials refused"},
    403: {"description": "`insufficient-scope`, `user-not-authorized-for-project`, ..."},
    404: {"description": "`not-found`"},
    429: {"description": "`rate-limit-exceeded`"},
}
_WRITE_PROBLEMS: dict[int | str, dict[str, Any]] = {
    **_PROBLEMS,
    409: {"description": "`idempotency-key-reused` / `idempotency-key-in-use`"},
    422: {"description": "`validation-error`, `amount-limit-exceeded`, `daily-limit-exceeded`"},
    503: {"description": "`service-unavailable`: the workflow engine is unreachable"},
}


class ProofIn(BaseModel):
    type: Literal["hmac-sha256", "ed25519"]
    hash: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="hex SHA-256 of the canonical form")
    signature: str = Field(min_length=1, max_length=300)
    timestamp: StrictInt | StrictStr = Field(description="ISO 8601 or Unix seconds")


class ActivityIn(BaseModel):
    user_uid: str = Field(min_length=1, max_length=100)
    activity_type: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$", examples=["trade"])
    activity_data: dict[str, Any] = Field(
        examples=[{"trade_volume_usdc": 1500, "trade_count": 12, "profit_usdc": 42.5}]
    )
    proof: ProofIn
    idempotency_key: str | None = Field(
        None, description="Required unless the Idempotency-Key header is sent"
    )


class BatchIn(BaseModel):
    activities: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=MAX_BATCH,
        description="Mining activities, each with its own idempotency_key",
    )
    idempotency_key: str | None = Field(None, description="The key of the batch request itself")


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def activity_attributes(row: MiningActivity, decimals: int) -> dict[str, Any]:
    return {
        "status": row.status,
        "user_uid": row.user_uid,
        "activity_type": row.activity_type,
        "mcd_estimated": to_decimal_string(row.mcd_amount, decimals),
        "mcd_amount": to_decimal_string(row.mcd_amount, decimals)
        if row.status == "confirmed"
        else None,
        "reason": row.reason,
        "tx_signature": row.tx_signature,
        "block_height": row.block_height,
        "idempotency_key": row.idempotency_key,
        "history": row.history,
        "created_at": _iso(row.created_at),
        "updated_at": _iso(row.updated_at),
        "confirmed_at": _iso(row.confirmed_at),
    }


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _webhook_meta(session: AsyncSession, project_id: int) -> dict[str, Any]:
    url = await session.scalar(
        select(WebhookEndpoint.url)
        .where(
            WebhookEndpoint.project_id == project_id,
            WebhookEndpoint.status == "active",
            WebhookEndpoint.events.contains(["mining.reward.confirmed"]),
        )
        .order_by(WebhookEndpoint.created_at)
        .limit(1)
    )
    note = (
        "The outcome is sent to this endpoint as mining.activity.verified and "
        "mining.reward.confirmed after on-chain finalization"
        if url
        else "No webhook subscribes to mining.reward.confirmed: register one at "
        "POST /v1/webhooks/register, or poll GET /v1/mining/activity/{id}"
    )
    return {"webhook_url": url, "webhook_note": note}


@dataclass
class _Candidate:
    """One activity that passed validation, to be accepted under ``key``."""

    index: int
    raw: dict[str, Any]
    item: ActivityIn
    key: str


async def _authorized(session: AsyncSession, project_id: int, uids: set[str]) -> set[str]:
    """The users among ``uids`` who granted this project ``mining:write`` (one statement)."""
    if not uids:
        return set()
    found = await session.scalars(
        select(OAuthConsent.user_uid).where(
            OAuthConsent.project_id == project_id,
            OAuthConsent.user_uid.in_(sorted(uids)),
            OAuthConsent.revoked_at.is_(None),
            OAuthConsent.scopes.contains(["mining:write"]),  # consent to mint for the user
        )
    )
    return set(found)


def _limit_problem(exc: limits.LimitExceeded) -> DomainError:
    return DomainError(str(exc), status=422, slug=exc.slug, limit=exc.limit)


async def _count_usage(
    session: AsyncSession,
    project_id: int,
    amounts: list[int],
    day: date,
    checked: limits.Limits,
    decimals: int,
) -> list[limits.LimitExceeded | None]:
    """Count each amount against the project's mining day, in order; None = counted.

    The whole batch is one conditional UPDATE when it fits; only a batch that would cross the
    daily limit is counted item by item, so exactly the items that fit are accepted."""
    if not amounts:
        return []

    async def count(amount: int) -> None:
        await limits.consume(
            session, project_id=project_id, currency="MCD", operation="mining", amount=amount,
            decimals=decimals, day=day, checked=checked,
        )  # fmt: skip

    try:
        await count(sum(amounts))
        return [None] * len(amounts)
    except limits.DailyLimitExceeded:
        pass  # nothing was counted: count item by item
    outcome: list[limits.LimitExceeded | None] = []
    for amount in amounts:
        try:
            await count(amount)
            outcome.append(None)
        except limits.LimitExceeded as exc:
            outcome.append(exc)
    return outcome


async def _accept_many(
    session: AsyncSession,
    project: ProjectPrincipal,
    candidates: list[_Candidate],
    workflow_id: str,
    decimals: int,
    redis: Redis,
) -> dict[int, MiningActivity | DomainError]:
    """Check consent and limits and record the activities (flush only): a handful of
    statements for the whole list, whatever its length. Each candidate gets its own outcome:
    the recorded activity, or the problem that refused it (nothing of it written)."""
    project_id = project.project_id
    outcome: dict[int, MiningActivity | DomainError] = {}
    if not candidates:
        return outcome
    authorized = await _authorized(session, project_id, {c.item.user_uid for c in candidates})
    now = datetime.now(UTC)
    day = limits.utc_day(now)
    checked = await limits.project_limits(session, project_id, "mining", "MCD", decimals)
    # Each user's tech-tree bonus, cached in Redis by the daily job (one round trip).
    bonuses = await multipliers(session, redis, [c.item.user_uid for c in candidates])
    priced: list[tuple[_Candidate, int]] = []
    for c in candidates:
        if c.item.user_uid not in authorized:
            outcome[c.index] = DomainError(
                f"User {c.item.user_uid} has not authorized project {project_id}",
                status=403,
                slug="user-not-authorized-for-project",
            )
            continue
        amount = reward_units(c.item.activity_data, bonuses[c.item.user_uid], decimals)
        if amount > checked.per_operation:
            try:  # the engine's own check, for its message (reads only; rare)
                await limits.check_operation(
                    session, project_id=project_id, currency="MCD", operation="mining",
                    amount=amount, decimals=decimals,
                )  # fmt: skip
            except limits.LimitExceeded as exc:
                outcome[c.index] = _limit_problem(exc)
                continue
        priced.append((c, amount))
    counted = await _count_usage(
        session, project_id, [amount for _, amount in priced], day, checked, decimals
    )
    rows: list[MiningActivity] = []
    for (c, amount), refused in zip(priced, counted, strict=True):
        if refused is not None:
            outcome[c.index] = _limit_problem(refused)
            continue
        proof = c.raw["proof"]
        rows.append(
            MiningActivity(
                id=f"act_{uuid.uuid4().hex[:24]}",
                project_id=project_id,
                user_uid=c.item.user_uid,
                activity_type=c.item.activity_type,
                activity_data=c.raw["activity_data"],
                proof={k: proof[k] for k in ("type", "hash", "signature", "timestamp")},
                canonical=canonical_activity(
                    c.item.user_uid,
                    c.item.activity_type,
                    c.raw["activity_data"],
                    proof["timestamp"],
                ),
                idempotency_key=c.key,
                status="pending_verification",
                mcd_amount=amount,
                reward_day=day,
                workflow_id=workflow_id,
                history=[{"status": "pending_verification", "at": _iso(now)}],
                created_at=now,
                updated_at=now,
                op_key=None,
                tx_signature=None,
                block_height=None,
                reason=None,
                confirmed_at=None,
            )
        )
        outcome[c.index] = rows[-1]
    if rows:
        # One statement (insertmanyvalues): a parameter list, so its SQL is the same for every
        # batch of a size and compiled once.
        table = table_of(MiningActivity)
        inserted = set(
            await session.scalars(
                insert(table)
                .on_conflict_do_nothing(index_elements=["project_id", "idempotency_key"])
                .returning(table.c.id),
                [{col.key: getattr(row, col.key) for col in table.columns} for row in rows],
            )
        )
        # A concurrent request recorded the same key since it was looked up: refused here,
        # and its counted amount given back.
        lost = [row for row in rows if row.id not in inserted]
        if lost:
            await limits.release(
                session, project_id=project_id, currency="MCD", operation="mining",
                amount=sum(row.mcd_amount for row in lost), day=day,
            )  # fmt: skip
            lost_ids = {row.id for row in lost}
            for index, done in list(outcome.items()):
                if isinstance(done, MiningActivity) and done.id in lost_ids:
                    outcome[index] = _key_reused()
    return outcome


def _same(existing: MiningActivity, c: _Candidate) -> bool:
    """Is ``c`` the request that recorded ``existing`` (same canonical form and signature)?"""
    canonical = canonical_activity(
        c.item.user_uid, c.item.activity_type, c.raw["activity_data"], c.raw["proof"]["timestamp"]
    )
    return existing.canonical == canonical and existing.proof.get("signature") == (
        c.item.proof.signature
    )


def _key_reused() -> DomainError:
    return DomainError(
        "This idempotency_key was already used for another mining activity",
        status=409,
        slug="idempotency-key-reused",
    )


async def _existing(
    session: AsyncSession, project_id: int, keys: list[str]
) -> dict[str, MiningActivity]:
    if not keys:
        return {}
    rows = await session.scalars(
        select(MiningActivity).where(
            MiningActivity.project_id == project_id, MiningActivity.idempotency_key.in_(keys)
        )
    )
    return {row.idempotency_key: row for row in rows}


async def _start(client: Client, queue: str, workflow_id: str, data: MiningInput) -> None:
    try:
        await client.start_workflow(
            MiningActivityWorkflow.run, data, id=workflow_id, task_queue=queue
        )
    except WorkflowAlreadyStartedError:
        pass  # the same request again: its workflow already runs
    except Exception as exc:
        log.warning("could not start %s", workflow_id, exc_info=True)
        raise ServiceUnavailable(
            "The workflow engine is unreachable; retry with the same idempotency_key",
            headers={"Retry-After": "5"},
        ) from exc


@router.post(
    "/submit-activity", status_code=202, response_model=Envelope, responses=_WRITE_PROBLEMS
)
async def submit_activity(payload: ActivityIn, project: ProjectWrite, request: Request) -> Any:
    """Submit one mining activity; verified independently, rewarded in MCD on chain."""
    decimals = token_decimals(request, "MCD")
    async with write_context(
        request, project, operation="mining.submit", user_uid=payload.user_uid
    ) as ctx:
        if await _existing(ctx.session, project.project_id, [ctx.key]):
            raise _key_reused()
        workflow_id = ctx.workflow_id("mining")
        candidate = _Candidate(0, ctx.body, payload, ctx.key)
        [row] = (
            await _accept_many(
                ctx.session, project, [candidate], workflow_id, decimals, request.app.state.redis
            )
        ).values()
        if isinstance(row, DomainError):
            raise row
        await _start(
            request.app.state.temporal,
            task_queue(request),
            workflow_id,
            MiningInput(activity_ids=[row.id], op_key_base=f"mining:{row.id}"),
        )
        meta = await _webhook_meta(ctx.session, project.project_id)
        response = ctx.respond(
            202,
            single("mining_activity", row.id, activity_attributes(row, decimals), **meta),
            audit_status="pending",
        )
    await start_pump(request)
    return response


def _item_error(index: int, key: Any, exc: DomainError, request: Request) -> dict[str, Any]:
    base_url = _settings(request).base_url.rstrip("/")
    error: dict[str, Any] = {
        "type": f"{base_url}/errors/{exc.slug}",
        "title": exc.title,
        "status": exc.status,
        "detail": exc.detail,
        **exc.extra,
    }
    return resource(
        "mining_batch_result",
        index,
        {"idempotency_key": key, "status": exc.status, "activity": None, "error": error},
    )


def _item_ok(index: int, row: MiningActivity, status: int, decimals: int) -> dict[str, Any]:
    activity = resource("mining_activity", row.id, activity_attributes(row, decimals))
    return resource(
        "mining_batch_result",
        index,
        {"idempotency_key": row.idempotency_key, "status": status, "activity": activity},
    )


def _validated(raw: Any) -> ActivityIn:
    if not isinstance(raw, dict):
        raise DomainError("Each activity must be an object", status=422, slug="validation-error")
    try:
        item = ActivityIn.model_validate(raw)
    except ValidationError as exc:
        fields = [
            {"field": ".".join(str(p) for p in e["loc"]) or "body", "message": e["msg"]}
            for e in exc.errors()
        ]
        summary = "; ".join(f"{f['field']}: {f['message']}" for f in fields[:5])
        raise DomainError(
            f"Invalid activity: {summary}", status=422, slug="validation-error", errors=fields
        ) from exc
    if not item.idempotency_key or not 1 <= len(item.idempotency_key) <= 255:
        raise DomainError(
            "Each activity needs its own idempotency_key (1-255 characters)",
            status=422,
            slug="validation-error",
            errors=[{"field": "idempotency_key", "message": "required"}],
        )
    return item


@router.post("/batch-submit", status_code=200, response_model=Envelope, responses=_WRITE_PROBLEMS)
async def batch_submit(payload: BatchIn, project: ProjectWrite, request: Request) -> Any:
    """Submit up to 100 activities; each has its own idempotency key, status and result."""
    decimals = token_decimals(request, "MCD")
    async with write_context(request, project, operation="mining.batch_submit") as ctx:
        workflow_id = ctx.workflow_id("mining-batch")
        meta = await _webhook_meta(ctx.session, project.project_id)
        results: dict[int, dict[str, Any]] = {}
        candidates: list[_Candidate] = []
        seen: set[str] = set()
        for index, raw in enumerate(ctx.body["activities"]):
            key = raw.get("idempotency_key") if isinstance(raw, dict) else None
            try:
                item = _validated(raw)
                assert item.idempotency_key is not None
                if item.idempotency_key in seen:
                    raise _key_reused()
                seen.add(item.idempotency_key)
                candidates.append(_Candidate(index, raw, item, item.idempotency_key))
            except DomainError as exc:
                results[index] = _item_error(index, key, exc, request)
        known = await _existing(ctx.session, project.project_id, [c.key for c in candidates])
        fresh: list[_Candidate] = []
        for c in candidates:
            existing = known.get(c.key)
            if existing is None:
                fresh.append(c)
            elif _same(existing, c):
                results[c.index] = _item_ok(c.index, existing, 200, decimals)
            else:
                results[c.index] = _item_error(c.index, c.key, _key_reused(), request)
        accepted: list[MiningActivity] = []
        outcomes = await _accept_many(
            ctx.session, project, fresh, workflow_id, decimals, request.app.state.redis
        )
        keys = {c.index: c.key for c in fresh}
        for index, outcome in sorted(outcomes.items()):
            if isinstance(outcome, DomainError):
                results[index] = _item_error(index, keys[index], outcome, request)
            else:
                accepted.append(outcome)
                results[index] = _item_ok(index, outcome, 202, decimals)
        if accepted:
            await _start(
                request.app.state.temporal,
                task_queue(request),
                workflow_id,
                MiningInput(
                    activity_ids=[r.id for r in accepted], op_key_base=f"mining:{workflow_id}"
                ),
            )
        meta |= {"accepted": len(accepted), "refused": len(results) - len(accepted)}
        data = [results[index] for index in sorted(results)]
        response = ctx.respond(
            200,
            {"data": data, "meta": {**page([], 0, PageParams())["meta"], **meta}},
            audit_status="pending" if accepted else "failed",
        )
    if accepted:
        await start_pump(request)
    return response


@router.get("/activity/{activity_id}", response_model=Envelope, responses=_PROBLEMS)
async def get_activity(
    activity_id: str, project: ProjectRead, session: SessionDep, request: Request
) -> Any:
    """Status of one of the project's mining activities, with its history and transaction."""
    row = await session.get(MiningActivity, activity_id)
    if row is None or row.project_id != project.project_id:
        raise NotFound(f"Mining activity {activity_id} does not exist")
    decimals = token_decimals(request, "MCD")
    return single("mining_activity", row.id, activity_attributes(row, decimals))


async def mining_reader(
    request: Request,
    token: str | None = Depends(oauth2_scheme),
    project_id: str | None = Depends(project_id_header),
) -> UserPrincipal | ProjectPrincipal:
    """A project (X-Project-ID + credentials) or a user bearer token, with mining:read."""
    scopes = SecurityScopes(["mining:read"])
    if project_id:
        return await current_project(scopes, request, project_id, None, None)
    return await current_user(scopes, request, token)


@router.get("/records", response_model=Envelope, responses=_PROBLEMS)
async def records(
    reader: Annotated[UserPrincipal | ProjectPrincipal, Depends(mining_reader)],
    session: SessionDep,
    request: Request,
    params: Annotated[PageParams, Depends()],
    user_uid: Annotated[str | None, Query(description="projects: one user's records")] = None,
) -> dict[str, Any]:
    """Confirmed mining rewards: a user's own, or a project's (optionally of one user)."""
    where = MiningActivity.status == "confirmed"
    if isinstance(reader, ProjectPrincipal):
        where = where & (MiningActivity.project_id == reader.project_id)
        if user_uid is not None:
            where = where & (MiningActivity.user_uid == user_uid)
    else:
        where = where & (MiningActivity.user_uid == reader.uid)
    total = await session.scalar(select(func.count()).where(where)) or 0
    rows = await session.scalars(
        select(MiningActivity)
        .where(where)
        .order_by(MiningActivity.confirmed_at.desc(), MiningActivity.id)
        .offset(params.offset)
        .limit(params.per_page)
    )
    decimals = token_decimals(request, "MCD")
    items = [
        resource(
            "mining_record",
            r.id,
            {
                "date": r.confirmed_at.date().isoformat() if r.confirmed_at else None,
                "project_id": str(r.project_id),
                "user_uid": r.user_uid,
                "activity_type": r.activity_type,
                "mcd_amount": to_decimal_string(r.mcd_amount, decimals),
                "status": r.status,
                "tx_signature": r.tx_signature,
                "block_height": r.block_height,
                "confirmed_at": _iso(r.confirmed_at),
            },
        )
        for r in rows
    ]
    return page(items, total, params)
