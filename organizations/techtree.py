"""The tech tree seen by one member: their chain's states and what is missing, and the
``unlock`` / ``upgrade`` requests. Both evaluate the rule on the stored KPI rows for the
window ending yesterday and can only light what the rule lights (never dim: that is the
daily job's); repeating them changes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_DOWN, Decimal

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.organizations import OrgMembership, OrgUnit, StationDailyKpi
from organizations import units
from organizations.errors import OrgRejected
from organizations.rules import (
    MIN_AVG_INPUT,
    MIN_MEMBERS,
    MIN_QUALIFYING_DAYS,
    bonus_percent,
    is_lit,
    window,
)


@dataclass
class UnitState:
    unit: OrgUnit
    lit: bool
    qualifying_days: Decimal
    stations: int
    missing_days: Decimal
    # stations only: today's members, the last computed day's average input
    member_count: int | None = None
    last_avg_input: int | None = None
    missing_members: int | None = None
    missing_avg_input: int | None = None
    changed: bool = False


@dataclass
class TreeView:
    station: OrgUnit | None
    window_start: date
    window_end: date
    units: list[UnitState] = field(default_factory=list)

    @property
    def bonus_percent(self) -> int:
        return bonus_percent({s.unit.unit_type for s in self.units if s.unit.lit})


async def _evaluate(session: AsyncSession, unit: OrgUnit, first: date, last: date) -> UnitState:
    days = await units.station_days(session, unit, first, last)
    if unit.unit_type == "station":
        q = Decimal(days[0].qualifying_days if days else 0)
    else:
        q = units.average_days(days)
    state = UnitState(
        unit=unit,
        lit=unit.lit,
        qualifying_days=q,
        stations=len(days),
        missing_days=max(Decimal(MIN_QUALIFYING_DAYS) - q, Decimal(0)),
    )
    if unit.unit_type == "station":
        count = await session.scalar(
            select(func.count())
            .select_from(OrgMembership)
            .where(OrgMembership.station_id == unit.id, OrgMembership.left_at.is_(None))
        )
        last_avg = await session.scalar(
            select(StationDailyKpi.avg_input).where(
                StationDailyKpi.station_id == unit.id, StationDailyKpi.day == last
            )
        )
        state.member_count = int(count or 0)
        state.last_avg_input = int(last_avg or 0)
        state.missing_members = max(MIN_MEMBERS - state.member_count, 0)
        state.missing_avg_input = max(MIN_AVG_INPUT - state.last_avg_input, 0)
    return state


async def view(session: AsyncSession, uid: str, today: date) -> TreeView:
    """The caller's chain as stored (the daily job's states), with what each unit misses."""
    last = await units.window_end(session, today)
    first, _ = window(last)
    station = await units.user_station(session, uid)
    tree = TreeView(station=station, window_start=first, window_end=last)
    if station is not None:
        for unit in await units.chain(session, station):
            tree.units.append(await _evaluate(session, unit, first, last))
    return tree


async def _light(session: AsyncSession, uid: str, today: date, kinds: set[str]) -> TreeView:
    station = await units.user_station(session, uid)
    if station is None:
        raise OrgRejected("You are not a member of any station", slug="not-a-member", status=409)
    last = today - timedelta(days=1)
    first, _ = window(last)
    tree = TreeView(station=station, window_start=first, window_end=last)
    for unit in await units.chain(session, station):
        locked = await session.get(OrgUnit, unit.id, with_for_update=True, populate_existing=True)
        assert locked is not None
        state = await _evaluate(session, locked, first, last)
        if locked.unit_type in kinds and not locked.lit and is_lit(state.qualifying_days):
            locked.lit = True
            locked.lit_since = last
            locked.qualifying_days = state.qualifying_days.quantize(Decimal("0.01"), ROUND_DOWN)
            locked.state_day = last
            state.lit = True
            state.changed = True
        tree.units.append(state)
    await session.flush()
    return tree


async def unlock(session: AsyncSession, uid: str, today: date) -> TreeView:
    """Evaluate the caller's station now (window ending yesterday); light it if it earned it."""
    return await _light(session, uid, today, {"station"})


async def upgrade(session: AsyncSession, uid: str, today: date) -> TreeView:
    """Evaluate the units above the caller's station; light those that earned it."""
    return await _light(session, uid, today, {"matrix", "sector", "system"})
