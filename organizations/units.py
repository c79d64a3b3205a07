"""Units of the hierarchy and memberships: create, place, move, remove, and the reads the
API shows (flush only). A unit is named on the wire ``<type>-<number>`` (``station-12``),
the (type, id) key the territory program uses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from db.models import User
from db.models.organizations import KpiProgress, OrgMembership, OrgUnit, StationDailyKpi
from db.paging import Paging, page_of
from organizations.errors import OrgRejected, not_found
from organizations.kpi import JOB
from organizations.rules import (
    CHILD_CAPACITY,
    LEVELS,
    PARENT_TYPE,
    STATION_CAPACITY,
    window,
)

_REF = re.compile(r"^(station|matrix|sector|system)-([1-9][0-9]{0,17})$")


def ref(unit: OrgUnit) -> str:
    return f"{unit.unit_type}-{unit.number}"


def parse_ref(value: str) -> tuple[str, int]:
    match = _REF.match(value)
    if match is None:
        raise OrgRejected(
            f"{value!r} is not a unit id: use <type>-<number>, e.g. station-12",
            slug="not-found",
            status=404,
        )
    return match.group(1), int(match.group(2))


async def get(session: AsyncSession, value: str, *, lock: bool = False) -> OrgUnit:
    kind, number = parse_ref(value)
    statement = select(OrgUnit).where(OrgUnit.unit_type == kind, OrgUnit.number == number)
    if lock:
        statement = statement.with_for_update()
    unit = await session.scalar(statement)
    if unit is None:
        raise not_found(f"Unit {value}")
    return unit


@dataclass(frozen=True)
class NewUnit:
    unit_type: str
    number: int
    name: str
    parent: str | None = None
    manager_uid: str | None = None
    territory_mint: str | None = None


async def create(session: AsyncSession, spec: NewUnit) -> tuple[OrgUnit, bool]:
    """Create a unit under its parent; the same unit again is returned as it is (False)."""
    if spec.unit_type not in LEVELS:
        raise OrgRejected(f"Unknown unit type {spec.unit_type}", slug="validation-error")
    parent: OrgUnit | None = None
    wanted = PARENT_TYPE[spec.unit_type]
    if spec.parent is not None:
        parent = await get(session, spec.parent, lock=True)
        if parent.unit_type != wanted:
            raise OrgRejected(
                f"A {spec.unit_type} belongs to a {wanted or 'nothing'}, not a {parent.unit_type}",
                slug="invalid-parent",
            )
    if spec.manager_uid is not None and await session.get(User, spec.manager_uid) is None:
        raise not_found(f"User {spec.manager_uid}")
    existing = await session.scalar(
        select(OrgUnit).where(OrgUnit.unit_type == spec.unit_type, OrgUnit.number == spec.number)
    )
    if existing is not None:
        same = (
            existing.name == spec.name
            and existing.parent_id == (parent.id if parent else None)
            and existing.manager_uid == spec.manager_uid
            and existing.territory_mint == spec.territory_mint
        )
        if same:
            return existing, False
        raise OrgRejected(
            f"{spec.unit_type}-{spec.number} already exists with other attributes",
            slug="unit-exists",
            status=409,
        )
    if parent is not None:
        children = await session.scalar(
            select(func.count()).select_from(OrgUnit).where(OrgUnit.parent_id == parent.id)
        )
        if (children or 0) >= CHILD_CAPACITY[parent.unit_type]:
            raise OrgRejected(
                f"{ref(parent)} already holds {children} units", slug="unit-full", status=409
            )
    unit = OrgUnit(
        unit_type=spec.unit_type,
        number=spec.number,
        name=spec.name,
        parent_id=parent.id if parent else None,
        manager_uid=spec.manager_uid,
        territory_mint=spec.territory_mint,
        lit=False,
        qualifying_days=Decimal(0),
    )
    session.add(unit)
    await session.flush()
    await session.refresh(unit)
    return unit, True


async def open_membership(session: AsyncSession, uid: str) -> OrgMembership | None:
    membership: OrgMembership | None = await session.scalar(
        select(OrgMembership).where(OrgMembership.user_uid == uid, OrgMembership.left_at.is_(None))
    )
    return membership


async def _sync_legacy(session: AsyncSession, uid: str, station: OrgUnit | None) -> None:
    """The legacy profile's station_id / unit_id (station and matrix numbers)."""
    matrix = (
        await session.get(OrgUnit, station.parent_id) if station and station.parent_id else None
    )
    await session.execute(
        update(User)
        .where(User.uid == uid)
        .values(
            station_id=station.number if station else None,
            unit_id=matrix.number if matrix else None,
        )
    )


async def place(
    session: AsyncSession, station_ref: str, uid: str, now: datetime
) -> tuple[OrgMembership, bool]:
    """Put ``uid`` in the station, leaving their current one at ``now``; (membership, moved).
    Already there: nothing changes."""
    station = await get(session, station_ref, lock=True)  # serialises the capacity check
    if station.unit_type != "station":
        raise OrgRejected("Members are placed in stations", slug="invalid-unit")
    user = await session.get(User, uid, with_for_update=True)
    if user is None:
        raise not_found(f"User {uid}")
    current = await open_membership(session, uid)
    if current is not None and current.station_id == station.id:
        return current, False
    members = await session.scalar(
        select(func.count())
        .select_from(OrgMembership)
        .where(OrgMembership.station_id == station.id, OrgMembership.left_at.is_(None))
    )
    if (members or 0) >= STATION_CAPACITY:
        raise OrgRejected(
            f"{ref(station)} is full ({STATION_CAPACITY} members)", slug="station-full", status=409
        )
    if current is not None:
        current.left_at = now
        await session.flush()
    membership = OrgMembership(user_uid=uid, station_id=station.id, joined_at=now, left_at=None)
    session.add(membership)
    await session.flush()
    await _sync_legacy(session, uid, station)
    return membership, True


async def remove(session: AsyncSession, uid: str, now: datetime) -> OrgMembership | None:
    """End the user's open membership (None when they had none)."""
    current = await open_membership(session, uid)
    if current is None:
        return None
    current.left_at = now
    await session.flush()
    await _sync_legacy(session, uid, None)
    return current


def station_ids_under(unit: OrgUnit) -> Select[Any]:
    """The ids of the stations a unit covers (itself for a station)."""
    st, mx, se = aliased(OrgUnit), aliased(OrgUnit), aliased(OrgUnit)
    return (
        select(st.id)
        .outerjoin(mx, mx.id == st.parent_id)
        .outerjoin(se, se.id == mx.parent_id)
        .where(
            st.unit_type == "station",
            (st.id == unit.id)
            | (mx.id == unit.id)
            | (se.id == unit.id)
            | (se.parent_id == unit.id),
        )
    )


async def list_units(
    session: AsyncSession, kind: str | None, parent: str | None, window: Paging
) -> tuple[list[OrgUnit], int]:
    statement = select(OrgUnit)
    if kind is not None:
        statement = statement.where(OrgUnit.unit_type == kind)
    if parent is not None:
        statement = statement.where(OrgUnit.parent_id == (await get(session, parent)).id)
    return await page_of(session, statement, (OrgUnit.unit_type, OrgUnit.number), window)


async def member_counts(session: AsyncSession, units: list[OrgUnit]) -> dict[int, int]:
    """Current members per unit (of all the stations under it)."""
    out: dict[int, int] = {}
    for unit in units:
        out[unit.id] = (
            await session.scalar(
                select(func.count())
                .select_from(OrgMembership)
                .where(
                    OrgMembership.left_at.is_(None),
                    OrgMembership.station_id.in_(station_ids_under(unit)),
                )
            )
            or 0
        )
    return out


async def parent_of(session: AsyncSession, unit: OrgUnit) -> OrgUnit | None:
    return await session.get(OrgUnit, unit.parent_id) if unit.parent_id else None


@dataclass(frozen=True)
class MemberRow:
    uid: str
    display_name: str | None
    station: str
    joined_at: datetime


async def members(
    session: AsyncSession, unit: OrgUnit, window: Paging
) -> tuple[list[MemberRow], int]:
    statement = (
        select(OrgMembership.user_uid, User.display_name, OrgUnit.number, OrgMembership.joined_at)
        .join(User, User.uid == OrgMembership.user_uid)
        .join(OrgUnit, OrgUnit.id == OrgMembership.station_id)
        .where(
            OrgMembership.left_at.is_(None),
            OrgMembership.station_id.in_(station_ids_under(unit)),
        )
    )
    order = (OrgMembership.joined_at, OrgMembership.user_uid)
    rows, total = await page_of(session, statement, order, window)
    return [MemberRow(u, n, f"station-{s}", j) for u, n, s, j in rows], total


async def window_end(session: AsyncSession, today: date) -> date:
    """The last day the daily job completed (yesterday before its first run)."""
    done = await session.scalar(
        select(KpiProgress.last_completed_day).where(KpiProgress.job == JOB)
    )
    return done if done is not None else today - timedelta(days=1)


@dataclass(frozen=True)
class StationDays:
    station_id: int
    number: int
    qualifying_days: int
    input_total: int


async def station_days(
    session: AsyncSession, unit: OrgUnit, first: date, last: date
) -> list[StationDays]:
    """Per station under ``unit``: qualifying days and summed input in first..last."""
    rows = await session.execute(
        select(
            OrgUnit.id,
            OrgUnit.number,
            func.count(StationDailyKpi.day).filter(StationDailyKpi.qualifies),
            func.coalesce(func.sum(StationDailyKpi.total_input), 0),
        )
        .outerjoin(
            StationDailyKpi,
            (StationDailyKpi.station_id == OrgUnit.id) & StationDailyKpi.day.between(first, last),
        )
        .where(OrgUnit.id.in_(station_ids_under(unit)))
        .group_by(OrgUnit.id, OrgUnit.number)
        .order_by(OrgUnit.number)
    )
    return [StationDays(int(i), int(n), int(q), int(t)) for i, n, q, t in rows]


def average_days(days: list[StationDays]) -> Decimal:
    if not days:
        return Decimal(0)
    return Decimal(sum(d.qualifying_days for d in days)) / len(days)


async def daily_rows(
    session: AsyncSession, station: OrgUnit, first: date, last: date
) -> list[StationDailyKpi]:
    rows = await session.scalars(
        select(StationDailyKpi)
        .where(StationDailyKpi.station_id == station.id, StationDailyKpi.day.between(first, last))
        .order_by(StationDailyKpi.day)
    )
    return list(rows)


async def stats(session: AsyncSession, unit: OrgUnit, today: date) -> dict[str, Any]:
    """The numbers behind a unit's state, for the window ending the last completed day."""
    first, last = window(await window_end(session, today))
    days = await station_days(session, unit, first, last)
    counts = await member_counts(session, [unit])
    out: dict[str, Any] = {
        "window_start": first,
        "window_end": last,
        "member_count": counts[unit.id],
        "stations": len(days),
        "mining_input_30d": sum(d.input_total for d in days),
        "qualifying_days": Decimal(days[0].qualifying_days)
        if unit.unit_type == "station" and days
        else average_days(days),
        "lit": unit.lit,
        "state_day": unit.state_day,
    }
    if unit.unit_type == "station":
        out["daily"] = await daily_rows(session, unit, first, last)
    else:
        out["station_days"] = days
    return out


async def chain(session: AsyncSession, station: OrgUnit) -> list[OrgUnit]:
    """The station and the units above it, bottom up."""
    units = [station]
    while units[-1].parent_id is not None:
        parent = await session.get(OrgUnit, units[-1].parent_id)
        if parent is None:
            break
        units.append(parent)
    return units


async def user_station(session: AsyncSession, uid: str) -> OrgUnit | None:
    membership = await open_membership(session, uid)
    return await session.get(OrgUnit, membership.station_id) if membership else None
