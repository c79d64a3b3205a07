"""Administrators' decisions on withdrawals (flush only): an approval (one of the one or two a
withdrawal above the thresholds needs, each by a different administrator) or a refusal, which
ends it ``rejected`` with its hold released. Nobody decides on their own withdrawal. The
operator orchestration (audit, the workflow told after the commit) is ``api.operations``."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from chain.decimals import TokenDecimals
from core.errors import InvalidState, NotFound, Rejected
from db.models.withdrawals import Withdrawal, WithdrawalDecision
from db.paging import all_in_order
from engine.withdrawals import approvals, end


async def decide(
    session: AsyncSession,
    withdrawal_id: str,
    admin_uid: str,
    decision: str,
    reason: str,
    decimals: TokenDecimals,
) -> Withdrawal:
    """An administrator approves (one of the approvals it needs) or rejects (it ends,
    ``rejected``) a pending withdrawal; each administrator decides once, never on their own."""
    w = await session.get(Withdrawal, withdrawal_id, with_for_update=True)
    if w is None:
        raise NotFound(f"Withdrawal {withdrawal_id} not found")
    if w.status != "pending":
        raise InvalidState(f"Withdrawal {withdrawal_id} is {w.status}", withdrawal_status=w.status)
    if w.user_uid == admin_uid:
        raise Rejected(
            "An administrator cannot decide on their own withdrawal", slug="self-approval",
            status=403,
        )  # fmt: skip
    if await session.get(WithdrawalDecision, (withdrawal_id, admin_uid)) is not None:
        raise Rejected(
            f"You have decided on withdrawal {withdrawal_id} already; another administrator "
            "must give the second approval",
            slug="already-decided",
            status=409,
        )
    if decision == "approve":
        given = await approvals(session, withdrawal_id)
        if given >= w.approvals_required:
            raise InvalidState(
                f"Withdrawal {withdrawal_id} needs no (further) approval",
                approvals_required=w.approvals_required,
            )
    session.add(
        WithdrawalDecision(
            withdrawal_id=withdrawal_id, admin_uid=admin_uid, decision=decision, reason=reason
        )
    )
    await session.flush()
    if decision == "reject":
        ended = await end(
            session, withdrawal_id, "rejected", f"rejected by an administrator: {reason}", decimals
        )
        assert ended is not None  # the row is locked in pending
        return ended
    return w


async def decisions(session: AsyncSession, withdrawal_id: str) -> list[WithdrawalDecision]:
    return await all_in_order(
        session,
        WithdrawalDecision,
        WithdrawalDecision.withdrawal_id == withdrawal_id,
        WithdrawalDecision.created_at,
    )
