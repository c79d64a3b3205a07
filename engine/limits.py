"""Per-operation and per-UTC-day amount limits, per project and currency (decisions.md).

Usage is counted when an operation is accepted (in the same transaction) and released if it
fails. The day counter is one ``limit_usage`` row changed by a conditional UPDATE, so
concurrent operations can never push it over the limit.

Defaults come from the specification's table; a project overrides them in ``projects.limits``:
``{"transfer": {"MCC": {"per_operation": "100", "per_day": "1000"}}}`` (decimal strings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from core.money import InvalidAmount, to_base_units, to_decimal_string
from db.last import LastStatement, run_last
from db.models.engine import LimitUsage
from db.models.identity import Project
from db.notify import NotifyCache, project_key
from engine.errors import Rejected

# operation -> (per operation, per day), in whole tokens; the same for MCC and MCD.
DEFAULT_LIMITS: dict[str, tuple[int, int]] = {
    "fund_lock": (10_000, 100_000),
    "transfer": (5_000, 50_000),
    "mining": (1_000, 10_000),
}


class LimitExceeded(Exception):
    slug = "amount-limit-exceeded"

    def __init__(self, message: str, limit: int, decimals: int) -> None:
        super().__init__(message)
        self.limit = to_decimal_string(limit, decimals)


class AmountLimitExceeded(LimitExceeded):
    slug = "amount-limit-exceeded"


class DailyLimitExceeded(LimitExceeded):
    slug = "daily-limit-exceeded"


@dataclass(frozen=True)
class Limits:
    per_operation: int
    per_day: int


@dataclass(frozen=True)
class Charge:
    """One operation's amount (base units), counted against its project's limits."""

    project_id: int
    currency: str
    operation: str
    amount: int
    decimals: int


def utc_day(now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


def _override(overrides: dict[str, Any], operation: str, currency: str) -> dict[str, Any]:
    for outer, inner in ((operation, currency), (currency, operation)):
        found = overrides.get(outer)
        if isinstance(found, dict) and isinstance(found.get(inner), dict):
            return dict(found[inner])
    return {}


def resolve(
    overrides: dict[str, Any] | None, operation: str, currency: str, decimals: int
) -> Limits:
    per_op, per_day = DEFAULT_LIMITS[operation]
    limits = Limits(per_op * 10**decimals, per_day * 10**decimals)
    custom = _override(overrides or {}, operation, currency)
    values: dict[str, int] = {}
    for name in ("per_operation", "per_day"):
        if name in custom:
            try:
                values[name] = to_base_units(str(custom[name]), decimals, allow_zero=True)
            except InvalidAmount:
                continue  # a malformed override never loosens or breaks anything: keep default
    return Limits(
        values.get("per_operation", limits.per_operation), values.get("per_day", limits.per_day)
    )


# A project's overrides are remembered in-process (a database round trip saved per accepted
# operation) and dropped the moment its row changes: the projects trigger (migration 0018)
# names ``project:<id>`` at commit, and the process's one listener (db.notify, attached by the
# API's start-up) evicts it here as it does the authentication's project row, so a change of
# ``projects.limits`` takes effect on the next request on every process. A process without a
# listener (worker, CLI) caches nothing. Usage is never cached: it is counted in the database.
OVERRIDES_CACHE_SECONDS = 300.0
OVERRIDES: NotifyCache[dict[str, Any] | None] = NotifyCache(None, OVERRIDES_CACHE_SECONDS)


async def project_limits(
    session: AsyncSession, project_id: int, operation: str, currency: str, decimals: int
) -> Limits:
    async def load() -> dict[str, Any] | None:
        found: dict[str, Any] | None = await session.scalar(
            select(Project.limits).where(Project.project_id == project_id)
        )
        return found

    overrides = await OVERRIDES.get(project_key(project_id), load)
    return resolve(overrides, operation, currency, decimals)


async def check_operation(session: AsyncSession, charge: Charge) -> Limits:
    """Raise AmountLimitExceeded when one operation is over its limit (reads only)."""
    c = charge
    limits = await project_limits(session, c.project_id, c.operation, c.currency, c.decimals)
    if c.amount > limits.per_operation:
        raise AmountLimitExceeded(
            f"{to_decimal_string(c.amount, c.decimals)} {c.currency} is over the per-operation "
            f"limit of {to_decimal_string(limits.per_operation, c.decimals)} {c.currency} for "
            f"{c.operation}",
            limits.per_operation,
            c.decimals,
        )
    return limits


async def consume(
    session: AsyncSession, charge: Charge, *, day: date | None = None, checked: Limits | None = None
) -> date:
    """Count the charge against today's usage; raises without writing when over a limit.

    Returns the UTC day counted (keep it to release the same day's usage later)."""
    c = charge
    limits = checked or await check_operation(session, c)
    day = day or utc_day()
    counted = await session.scalar(
        _CONSUME,
        {
            "project_id": c.project_id,
            "currency": c.currency,
            "operation": c.operation,
            "day": day,
            "amount": c.amount,
            "per_day": limits.per_day,
        },
    )
    if counted is None:
        raise daily_exceeded(c, limits, day)
    return day


def daily_exceeded(charge: Charge, limits: Limits, day: date) -> DailyLimitExceeded:
    """The refusal of a charge that did not fit its day's usage (nothing was counted)."""
    c = charge
    return DailyLimitExceeded(
        f"{to_decimal_string(c.amount, c.decimals)} {c.currency} would exceed the daily limit "
        f"of {to_decimal_string(limits.per_day, c.decimals)} {c.currency} for {c.operation} "
        f"(UTC day {day.isoformat()})",
        limits.per_day,
        c.decimals,
    )


# The engine's own operations meet their limits as a Rejected (a problem with the limit).
def limit_rejection(exc: LimitExceeded) -> Rejected:
    return Rejected(str(exc), slug=exc.slug, limit=exc.limit)


async def check_limit(session: AsyncSession, charge: Charge) -> Limits:
    """The charge's per-operation limit (reads only); over it: Rejected."""
    try:
        return await check_operation(session, charge)
    except LimitExceeded as exc:
        raise limit_rejection(exc) from exc


# Count and check in one round trip: the day's row is created by the first operation (if it
# alone fits) and otherwise only grows while the total stays within the limit. Parameters:
# project_id, currency, operation, day, amount, per_day; no row back when nothing was counted.
_CONSUME_SQL = """
INSERT INTO limit_usage AS u (project_id, currency, operation, day, used)
SELECT :project_id, :currency, :operation, :day, :amount WHERE :amount <= :per_day
ON CONFLICT (project_id, currency, operation, day) DO UPDATE
SET used = u.used + EXCLUDED.used, updated_at = now()
WHERE u.used + EXCLUDED.used <= :per_day
RETURNING used
"""
_CONSUME = text(_CONSUME_SQL)


def count_last(
    session: AsyncSession,
    charge: Charge,
    checked: Limits,
    day: date,
    refused: Callable[[LimitExceeded], Exception],
) -> None:
    """Count the charge against its day's usage at the commit point, with the COMMIT in one
    round trip (db.last: every accept of the project updates this row); over the daily limit
    the request raises ``refused(DailyLimitExceeded)`` and nothing of it is committed."""
    c = charge
    params = {
        "project_id": c.project_id,
        "currency": c.currency,
        "operation": c.operation,
        "day": day,
        "amount": c.amount,
        "per_day": checked.per_day,
    }
    run_last(
        session,
        LastStatement(_CONSUME_SQL, params, lambda: refused(daily_exceeded(c, checked, day))),
    )


async def release(
    session: AsyncSession,
    *,
    project_id: int,
    currency: str,
    operation: str,
    amount: int,
    day: date,
) -> None:
    """Give back usage counted for an operation that failed (never below zero)."""
    await session.execute(
        update(LimitUsage)
        .where(
            LimitUsage.project_id == project_id,
            LimitUsage.currency == currency,
            LimitUsage.operation == operation,
            LimitUsage.day == day,
        )
        .values(used=func.greatest(LimitUsage.used - amount, 0), updated_at=func.now())
    )
