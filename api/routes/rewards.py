"""Confirmed mining rewards for the user: daily MCD reward records, and the legacy history."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from sqlalchemy import Date, cast, func, select

from access.callers import id_token
from api.auth.principal import UserPrincipal
from api.callers import LEGACY_PROBLEMS, LegacyCallers, McdRead
from api.deps import DecimalsDep, SessionDep
from api.envelope import PageQuery, page, resource
from api.openapi import problems
from api.schemas.mining import LegacyMiningHistoryBody, McdRewardAttributes
from api.typed import Many
from core.money import to_decimal_string
from db.models.identity import Project
from db.models.mining import MiningSubmission
from db.paging import Window, page_of

router = APIRouter(tags=["mining"])

LEGACY_STATUSES = ("pending_verification", "verified", "pending_onchain", "confirmed")
# Past any number of records a user can have; under PostgreSQL's bigint OFFSET.
_MAX_OFFSET = 2**62
# The legacy form: an ID token counts for what its client was granted (mining:read here).
LegacyMiningRead = Annotated[UserPrincipal, Depends(LegacyCallers(id_token("mining:read")))]


@router.get(
    "/v1/mcd/rewards",
    response_model=Many[McdRewardAttributes],
    responses=problems(401, scope="mcd:read"),
)
async def mcd_rewards(
    user: McdRead, session: SessionDep, mints: DecimalsDep, params: PageQuery
) -> dict[str, Any]:
    """The current user's confirmed MCD mining rewards per UTC day and project."""
    day = cast(func.timezone("UTC", MiningSubmission.confirmed_at), Date)
    where = (MiningSubmission.user_uid == user.uid) & (MiningSubmission.status == "confirmed")
    grouped = (
        select(
            day.label("day"),
            MiningSubmission.project_id,
            func.sum(MiningSubmission.mcd_amount).label("amount"),
            func.count().label("activities"),
        )
        .where(where)
        .group_by(day, MiningSubmission.project_id)
    ).subquery()
    named = select(grouped, Project.name).outerjoin(
        Project, Project.project_id == grouped.c.project_id
    )
    order = (grouped.c.day.desc(), grouped.c.project_id)
    rows, total = await page_of(session, named, order, params)
    decimals = mints.mcd  # rewards are MCD, as read from its mint
    items = [
        resource(
            "mcd_reward",
            f"{r.day.isoformat()}:{r.project_id}",
            McdRewardAttributes(
                date=r.day.isoformat(),
                project_id=str(r.project_id),
                project_name=r.name,
                amount=to_decimal_string(int(r.amount), decimals),
                activities=int(r.activities),
                source="mining",
            ),
        )
        for r in rows
    ]
    return page(items, total, params)


@router.get(
    "/mcc/mining/history",
    tags=["legacy"],
    response_model=LegacyMiningHistoryBody,
    responses={s: LEGACY_PROBLEMS[s] for s in (401, 403)},
)
async def legacy_mining_history(
    user: LegacyMiningRead,
    session: SessionDep,
    mints: DecimalsDep,
    limit: Annotated[int, Query(description="default 20; clamped to 1-100")] = 20,
    offset: Annotated[int, Query(description="default 0; past the last record: no records")] = 0,
) -> dict[str, Any]:
    """Legacy mining history (plain JSON; bearer is an ID token): records and total."""
    # Clamped, as this legacy route always answered: an offset past every row is an empty page,
    # whatever its size (PostgreSQL's OFFSET is a bigint).
    limit, offset = max(1, min(limit, 100)), max(0, min(offset, _MAX_OFFSET))
    where = (MiningSubmission.user_uid == user.uid) & MiningSubmission.status.in_(LEGACY_STATUSES)
    named = (
        select(MiningSubmission, Project.name)
        .outerjoin(Project, Project.project_id == MiningSubmission.project_id)
        .where(where)
    )
    order = (MiningSubmission.created_at.desc(), MiningSubmission.id)
    rows, total = await page_of(session, named, order, Window(offset, limit))
    decimals = mints.mcd  # rewards are MCD, as read from its mint
    records = [
        {
            "date": (row.confirmed_at or row.created_at).date().isoformat(),
            "project": name or str(row.project_id),
            # JSON number, as the legacy form shows; converted only at this edge.
            "amount": float(Decimal(to_decimal_string(row.mcd_amount, decimals))),
            "status": row.status,
        }
        for row, name in rows
    ]
    return {"records": records, "total": total}
