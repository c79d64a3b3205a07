"""Per-operation and per-UTC-day MCD limits on mining rewards, per project (decisions.md:
counted when accepted, released if the activity is rejected or fails).

Defaults 1000 MCD per operation and 10000 MCD per day; a project overrides them in
``projects.limits`` as ``{"mining": {"MCD": {"per_operation": "...", "per_day": "..."}}}``
(the engine's format). Kept here, on ``mining_daily_totals``, because the engine's shared
limit table was not yet merged when mining landed; the interface matches engine.limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from core.money import InvalidAmount, to_base_units, to_decimal_string
from db.models.identity import Project
from db.models.mining import MiningDailyTotal

PER_OPERATION_MCD = 1_000
PER_DAY_MCD = 10_000


class LimitExceeded(Exception):
    slug = "amount-limit-exceeded"


class AmountLimitExceeded(LimitExceeded):
    slug = "amount-limit-exceeded"


class DailyLimitExceeded(LimitExceeded):
    slug = "daily-limit-exceeded"


@dataclass(frozen=True)
class Limits:
    per_operation: int
    per_day: int


def resolve(overrides: dict[str, Any] | None, decimals: int) -> Limits:
    values = {
        "per_operation": PER_OPERATION_MCD * 10**decimals,
        "per_day": PER_DAY_MCD * 10**decimals,
    }
    custom: Any = (overrides or {}).get("mining", {})
    custom = custom.get("MCD", {}) if isinstance(custom, dict) else {}
    for name in values:
        if isinstance(custom, dict) and name in custom:
            try:
                values[name] = to_base_units(str(custom[name]), decimals, allow_zero=True)
            except InvalidAmount:
                continue  # a malformed override never loosens anything
    return Limits(values["per_operation"], values["per_day"])


async def project_limits(session: AsyncSession, project_id: int, decimals: int) -> Limits:
    overrides = await session.scalar(select(Project.limits).where(Project.project_id == project_id))
    return resolve(overrides, decimals)


async def consume(
    session: AsyncSession, project_id: int, amount: int, day: date, limits: Limits, decimals: int
) -> None:
    """Count ``amount`` against the project's day; raises (writing nothing) when over."""
    if amount > limits.per_operation:
        raise AmountLimitExceeded(
            f"{to_decimal_string(amount, decimals)} MCD is over the per-operation limit of "
            f"{to_decimal_string(limits.per_operation, decimals)} MCD"
        )
    await session.execute(
        insert(MiningDailyTotal)
        .values(project_id=project_id, day=day, amount=0)
        .on_conflict_do_nothing()
    )
    counted = await session.scalar(
        update(MiningDailyTotal)
        .where(
            MiningDailyTotal.project_id == project_id,
            MiningDailyTotal.day == day,
            MiningDailyTotal.amount + amount <= limits.per_day,
        )
        .values(amount=MiningDailyTotal.amount + amount)
        .returning(MiningDailyTotal.amount)
    )
    if counted is None:
        raise DailyLimitExceeded(
            f"{to_decimal_string(amount, decimals)} MCD would exceed the daily limit of "
            f"{to_decimal_string(limits.per_day, decimals)} MCD (UTC day {day.isoformat()})"
        )


async def release(session: AsyncSession, project_id: int, amount: int, day: date) -> None:
    await session.execute(
        update(MiningDailyTotal)
        .where(MiningDailyTotal.project_id == project_id, MiningDailyTotal.day == day)
        .values(amount=func.greatest(MiningDailyTotal.amount - amount, 0))
    )
