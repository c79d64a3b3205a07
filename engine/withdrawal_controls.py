"""The controls a withdrawal meets when it is made (flush only, in the accept's transaction):
the minimum and per-withdrawal maximum, the user's limit over the last 24 hours, the
deployment's hourly outflow breaker, and how many administrators must approve it. Settings
in whole tokens (``core.config.WithdrawalSettings``), applied in each mint's own base units.

Every accept locks the breaker's one row first, so the sums below are exact under any
concurrency (withdrawals are made one at a time, deployment-wide; they are rare next to
transfers, which never touch the row). A withdrawal that would take its currency's outflow
since the later of an hour ago and the last reset over the limit trips the breaker; while it is
tripped, every new withdrawal waits (``held_by_breaker``) until an operator resets it
(``reset_breaker``), which lets the waiting ones go on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from core.config import WithdrawalSettings
from core.errors import InvalidState, Rejected
from core.money import to_base_units, to_decimal_string
from db.models.withdrawals import UNMOVED_WITHDRAWAL_STATUSES, Withdrawal, WithdrawalBreaker

DAY = timedelta(hours=24)
HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class Controls:
    """The settings in one currency's base units."""

    currency: str
    decimals: int
    minimum: int
    maximum: int
    daily_limit: int
    hourly_outflow_limit: int
    approval_above: int
    dual_approval_above: int
    cooling_off: timedelta
    max_wait: timedelta

    @classmethod
    def of(cls, settings: WithdrawalSettings, currency: str, decimals: int) -> Controls:
        def units(text: str) -> int:
            return to_base_units(text, decimals, allow_zero=True)

        return cls(
            currency, decimals, units(settings.minimum), units(settings.maximum),
            units(settings.daily_limit), units(settings.hourly_outflow_limit),
            units(settings.approval_above), units(settings.dual_approval_above),
            timedelta(seconds=settings.cooling_off_seconds),
            timedelta(seconds=settings.max_wait_seconds),
        )  # fmt: skip

    def tokens(self, units: int) -> str:
        return to_decimal_string(units, self.decimals)

    def approvals_required(self, amount: int) -> int:
        """Administrators who must approve: above the dual threshold two, above the single one."""
        if amount > self.dual_approval_above:
            return 2
        return 1 if amount > self.approval_above else 0

    def check_amount(self, amount: int) -> None:
        """The minimum and the per-withdrawal maximum (422 with the limit)."""
        if amount < self.minimum:
            raise Rejected(
                f"A withdrawal is at least {self.tokens(self.minimum)} {self.currency}",
                slug="amount-below-minimum",
                minimum=self.tokens(self.minimum),
            )
        if amount > self.maximum:
            raise Rejected(
                f"A withdrawal is at most {self.tokens(self.maximum)} {self.currency}",
                slug="amount-limit-exceeded",
                limit=self.tokens(self.maximum),
            )


async def _moved_since(
    session: AsyncSession, w: Withdrawal, since: datetime, *, user_uid: str | None = None
) -> int:
    """What the other withdrawals of ``w``'s currency made since ``since`` take out (all but
    those that ended without moving money), of one user or of everyone."""
    query = select(func.coalesce(func.sum(Withdrawal.amount), 0)).where(
        Withdrawal.currency == w.currency,
        Withdrawal.created_at > since,
        Withdrawal.status.not_in(UNMOVED_WITHDRAWAL_STATUSES),
        Withdrawal.id != w.id,
    )
    if user_uid is not None:
        query = query.where(Withdrawal.user_uid == user_uid)
    return int(await session.scalar(query) or 0)


async def breaker(session: AsyncSession, *, lock: bool = False) -> WithdrawalBreaker:
    """The breaker's one row (migration 0025 made it)."""
    query = select(WithdrawalBreaker).where(WithdrawalBreaker.id == 1)
    row = await session.scalar(query.with_for_update() if lock else query)
    assert row is not None, "the withdrawal_breaker row is missing (migration 0025)"
    return row


async def admit(
    session: AsyncSession, controls: Controls, withdrawal: Withdrawal, now: datetime
) -> bool:
    """The user's 24-hour limit (422 ``daily-limit-exceeded``) and the breaker, for a
    withdrawal just inserted; True when the breaker holds it (tripped before, or by it)."""
    row = await breaker(session, lock=True)  # held until the commit: one accept at a time
    amount, currency = withdrawal.amount, controls.currency
    used = await _moved_since(session, withdrawal, now - DAY, user_uid=withdrawal.user_uid)
    if used + amount > controls.daily_limit:
        raise Rejected(
            f"{controls.tokens(amount)} {currency} would take your withdrawals of the last 24 "
            f"hours over the limit of {controls.tokens(controls.daily_limit)} {currency} "
            f"({controls.tokens(used)} withdrawn)",
            slug="daily-limit-exceeded",
            limit=controls.tokens(controls.daily_limit),
            used=controls.tokens(used),
        )
    if row.tripped:
        return True
    since = max(now - HOUR, row.reset_at) if row.reset_at is not None else now - HOUR
    if await _moved_since(session, withdrawal, since) + amount > controls.hourly_outflow_limit:
        row.tripped, row.tripped_at, row.tripped_by = True, now, withdrawal.id
        return True
    return False


@dataclass(frozen=True)
class Released:
    """The withdrawals a breaker reset let go on (their workflows are told after the commit)."""

    withdrawal_ids: list[str]
    workflow_ids: list[str]


async def reset_breaker(
    session: AsyncSession, admin_uid: str, reason: str, now: datetime
) -> Released:
    """An operator's reset: the breaker closes, its outflow count starts again from now, and
    every withdrawal it held goes on (each still waits for its own approvals and cooling-off).
    409 ``invalid-state`` when it is not tripped."""
    row = await breaker(session, lock=True)
    if not row.tripped:
        raise InvalidState("The withdrawal breaker is not tripped")
    row.tripped, row.reset_at, row.reset_by, row.reset_reason = False, now, admin_uid, reason
    released = (
        await session.execute(
            update(Withdrawal)
            .where(Withdrawal.status == "pending", Withdrawal.held_by_breaker.is_(True))
            .values(held_by_breaker=False, updated_at=func.now())
            .returning(Withdrawal.id, Withdrawal.workflow_id)
        )
    ).all()
    await session.flush()
    return Released([r[0] for r in released], [r[1] for r in released if r[1]])
