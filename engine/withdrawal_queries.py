"""Which withdrawals a caller sees, written once: a user's own (a project's app sees only those
it started; the gateway's own client all of the user's), and the operators' views (stuck,
awaiting approval, held by the breaker, cooling off, by status), for the admin API and the
console alike."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.withdrawals import WITHDRAWAL_STATUSES, Withdrawal, WithdrawalDecision

WITHDRAWAL_VIEWS = (
    "stuck", "awaiting_approval", "held", "cooling_off", *WITHDRAWAL_STATUSES, "all",
)  # fmt: skip
NEWEST_FIRST = [Withdrawal.created_at.desc(), Withdrawal.id]


def _approvals() -> Any:
    """The approvals a withdrawal has, as a correlated subquery."""
    return (
        select(func.count())
        .where(
            WithdrawalDecision.withdrawal_id == Withdrawal.id,
            WithdrawalDecision.decision == "approve",
        )
        .scalar_subquery()
    )


def _waiting_for_approval() -> ColumnElement[bool]:
    return and_(Withdrawal.status == "pending", Withdrawal.approvals_required > _approvals())


def _cooling_off(now: datetime) -> ColumnElement[bool]:
    return and_(Withdrawal.status == "pending", Withdrawal.cooling_off_until > now)


def _stuck(older_than: timedelta, now: datetime) -> ColumnElement[bool]:
    """Being written for longer than ``older_than``, or waiting for nothing that long."""
    cutoff = now - older_than
    idle = and_(
        Withdrawal.status == "pending",
        Withdrawal.created_at < cutoff,
        Withdrawal.held_by_breaker.is_(False),
        or_(Withdrawal.cooling_off_until.is_(None), Withdrawal.cooling_off_until < cutoff),
        Withdrawal.approvals_required <= _approvals(),
    )
    return or_(and_(Withdrawal.status == "pending_onchain", Withdrawal.onchain_at < cutoff), idle)


def of_user(uid: str, project_id: int | None, status: str = "") -> Select[Any]:
    """A user's withdrawals as their token sees them: a project's app only those it started."""
    statement = select(Withdrawal).where(Withdrawal.user_uid == uid)
    if project_id is not None:
        statement = statement.where(Withdrawal.project_id == project_id)
    if status in WITHDRAWAL_STATUSES:
        statement = statement.where(Withdrawal.status == status)
    return statement


def visible_to(w: Withdrawal | None, uid: str, project_id: int | None) -> bool:
    """``of_user``'s rule for one withdrawal."""
    return (
        w is not None and w.user_uid == uid and (project_id is None or w.project_id == project_id)
    )


def listing(
    view: str = "all",
    *,
    q: str = "",
    currency: str = "",
    project_id: int | None = None,
    older_than: timedelta = timedelta(minutes=2),
    now: datetime | None = None,
) -> Select[Any]:
    """Withdrawals of a view, filtered by id or user (``q``), currency and project."""
    now = now or datetime.now(UTC)
    statement = select(Withdrawal)
    if view == "stuck":
        statement = statement.where(_stuck(older_than, now))
    elif view == "awaiting_approval":
        statement = statement.where(_waiting_for_approval())
    elif view == "held":
        statement = statement.where(
            Withdrawal.status == "pending", Withdrawal.held_by_breaker.is_(True)
        )
    elif view == "cooling_off":
        statement = statement.where(_cooling_off(now))
    elif view in WITHDRAWAL_STATUSES:
        statement = statement.where(Withdrawal.status == view)
    if term := q.strip():
        statement = statement.where(or_(Withdrawal.id == term, Withdrawal.user_uid == term))
    if currency in ("MCC", "MCD"):
        statement = statement.where(Withdrawal.currency == currency)
    if project_id is not None:
        statement = statement.where(Withdrawal.project_id == project_id)
    return statement


async def approvals_of(session: AsyncSession, ids: Sequence[str]) -> dict[str, int]:
    """The approvals each of ``ids`` has (one statement)."""
    if not ids:
        return {}
    rows = await session.execute(
        select(WithdrawalDecision.withdrawal_id, func.count())
        .where(
            WithdrawalDecision.withdrawal_id.in_(list(ids)),
            WithdrawalDecision.decision == "approve",
        )
        .group_by(WithdrawalDecision.withdrawal_id)
    )
    found = {wid: int(n) for wid, n in rows.all()}
    return {wid: found.get(wid, 0) for wid in ids}
