"""Mining submissions (single and batch), a submission's status, and mining records: thin
adapters over ``mining.accept`` (parse, authenticate, accept inside the one commit point, start
the workflow after the commit)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from access.callers import project
from api.auth.declaration import Callers
from api.auth.principal import ProjectPrincipal
from api.callers import MiningReader
from api.deps import DecimalsDep, SessionDep
from api.envelope import PageParams, PageQuery, page, resource, single
from api.idempotency import write_context
from api.openapi import problems
from api.schemas.mining import (
    MiningBatchBody,
    MiningBatchItemAttributes,
    MiningRecordAttributes,
    MiningSubmissionAttributes,
    MiningSubmitBody,
)
from api.starts import start, start_soon
from api.typed import Many, One, TypedResource
from chain.decimals import TokenDecimals
from core.config import Settings
from core.errors import DomainError, NotFound
from core.workflow_ids import MINING_BATCH_PREFIX, MINING_PREFIX
from db.models.mining import MiningSubmission
from db.paging import page_of
from mining.accept import Acceptor, ItemOutcome
from mining.inputs import ActivityIn, BatchIn
from mining.reward import RewardFormula
from workflows.mining import MiningSubmissionWorkflow, submission_input

router = APIRouter(prefix="/v1/mining", tags=["mining"])

ProjectWrite = Annotated[ProjectPrincipal, Depends(Callers(project("mining:write")))]
ProjectRead = Annotated[ProjectPrincipal, Depends(Callers(project("mining:read")))]

_PROBLEMS = problems(404, 429, caller="user-or-project")
_WRITE_PROBLEMS = _PROBLEMS | problems(
    409, s422="`validation-error`, `amount-limit-exceeded`, `daily-limit-exceeded`"
)


def _webhook_note(url: str | None) -> dict[str, Any]:
    """The meta of an accepted submission: where its outcome is sent (``url``), or how to
    learn it."""
    note = (
        "The outcome is sent to this endpoint as mining.activity.verified and "
        "mining.reward.confirmed after on-chain finalization"
        if url
        else "No webhook subscribes to mining.reward.confirmed: register one at "
        "POST /v1/webhooks/register, or poll GET /v1/mining/activity/{id}"
    )
    return {"webhook_url": url, "webhook_note": note}


def _acceptor(
    request: Request, session: AsyncSession, project: ProjectPrincipal, decimals: TokenDecimals
) -> Acceptor:
    settings = request.app.state.settings
    return Acceptor(
        session,
        request.app.state.redis,
        project_id=project.project_id,
        decimals=decimals.mcd,  # rewards are MCD
        formula=RewardFormula.of(settings),
    )


def _start_soon(request: Request, workflow_id: str, submission_ids: list[str]) -> None:
    """After the commit, without holding up the answer (see api.starts: if this never runs or
    fails, the recovery sweep starts the workflow by the same id with the same input)."""
    data = submission_input(workflow_id, submission_ids)
    started = start(request, MiningSubmissionWorkflow.run, data, workflow_id=workflow_id)
    start_soon(request, started, f"start {workflow_id}")


@router.post(
    "/submit-activity", status_code=202, response_model=MiningSubmitBody, responses=_WRITE_PROBLEMS
)
async def submit_activity(
    payload: ActivityIn, project: ProjectWrite, decimals: DecimalsDep, request: Request
) -> Any:
    """Submit one mining activity; verified independently, rewarded in MCD on chain."""
    async with write_context(
        request, project, operation="mining.submit", user_uid=payload.user_uid
    ) as ctx:
        acceptor = _acceptor(request, ctx.session, project, decimals)
        workflow_id = ctx.workflow_id(MINING_PREFIX)
        row, webhook_url = await acceptor.submit_one(ctx.body, payload, ctx.key, workflow_id)
        meta = _webhook_note(webhook_url)
        attributes = MiningSubmissionAttributes.of(row, acceptor.decimals)
        response = ctx.respond(
            202, single("mining_activity", row.id, attributes, **meta), audit_status="pending"
        )
    _start_soon(request, workflow_id, [row.id])
    return response


def _item(request: Request, outcome: ItemOutcome, decimals: int) -> dict[str, Any]:
    if (row := outcome.submission) is not None:
        activity = TypedResource[MiningSubmissionAttributes](
            type="mining_activity",
            id=row.id,
            attributes=MiningSubmissionAttributes.of(row, decimals),
        )
        item = MiningBatchItemAttributes(
            idempotency_key=row.idempotency_key, status=outcome.status, activity=activity
        )
    else:
        assert outcome.error is not None
        item = MiningBatchItemAttributes(
            idempotency_key=outcome.key,
            status=outcome.status,
            activity=None,
            error=_problem(request, outcome.error),
        )
    return resource("mining_batch_result", outcome.index, item)


def _problem(request: Request, exc: DomainError) -> dict[str, Any]:
    """A refused item's RFC 7807 body (the shape ``api.errors`` renders for a whole request)."""
    settings: Settings = request.app.state.settings
    return {
        "type": f"{settings.base_url.rstrip('/')}/errors/{exc.slug}",
        "title": exc.title,
        "status": exc.status,
        "detail": exc.detail,
        **exc.extra,
    }


def _one_page(count: int) -> PageParams:
    return PageParams(page=1, per_page=max(1, count))


@router.post(
    "/batch-submit", status_code=200, response_model=MiningBatchBody, responses=_WRITE_PROBLEMS
)
async def batch_submit(
    payload: BatchIn, project: ProjectWrite, decimals: DecimalsDep, request: Request
) -> Any:
    """Submit up to 100 activities; each has its own idempotency key, status and result."""
    async with write_context(request, project, operation="mining.batch_submit") as ctx:
        acceptor = _acceptor(request, ctx.session, project, decimals)
        workflow_id = ctx.workflow_id(MINING_BATCH_PREFIX)
        meta = _webhook_note(await acceptor.outcome_url())
        outcomes = await acceptor.submit_batch(ctx.body["activities"], workflow_id)
        accepted = [o.submission.id for o in outcomes if o.status == 202 and o.submission]
        meta |= {"accepted": len(accepted), "refused": len(outcomes) - len(accepted)}
        data = [_item(request, o, acceptor.decimals) for o in outcomes]
        response = ctx.respond(
            200,
            # The whole batch is one page: total, page and per_page are its real counts.
            {"data": data, "meta": {**page([], len(data), _one_page(len(data)))["meta"], **meta}},
            audit_status="pending" if accepted else "failed",
        )
    if accepted:
        _start_soon(request, workflow_id, accepted)
    return response


@router.get(
    "/activity/{activity_id}", response_model=One[MiningSubmissionAttributes], responses=_PROBLEMS
)
async def get_activity(
    activity_id: str, project: ProjectRead, session: SessionDep, decimals: DecimalsDep
) -> Any:
    """Status of one of the project's mining activities, with its history and transaction."""
    row = await session.get(MiningSubmission, activity_id)
    if row is None or row.project_id != project.project_id:
        raise NotFound(f"Mining activity {activity_id} does not exist")
    attributes = MiningSubmissionAttributes.of(row, decimals.mcd)
    return single("mining_activity", row.id, attributes)


@router.get("/records", response_model=Many[MiningRecordAttributes], responses=_PROBLEMS)
async def records(
    reader: MiningReader,
    session: SessionDep,
    decimals: DecimalsDep,
    params: PageQuery,
    user_uid: Annotated[str | None, Query(description="projects: one user's records")] = None,
) -> dict[str, Any]:
    """Confirmed mining rewards: a user's own, or a project's (optionally of one user)."""
    where = MiningSubmission.status == "confirmed"
    if isinstance(reader, ProjectPrincipal):
        where = where & (MiningSubmission.project_id == reader.project_id)
        if user_uid is not None:
            where = where & (MiningSubmission.user_uid == user_uid)
    else:
        where = where & (MiningSubmission.user_uid == reader.uid)
    order = (MiningSubmission.confirmed_at.desc(), MiningSubmission.id)
    rows, total = await page_of(session, select(MiningSubmission).where(where), order, params)
    items = [
        resource("mining_record", r.id, MiningRecordAttributes.of(r, decimals.mcd)) for r in rows
    ]
    return page(items, total, params)
