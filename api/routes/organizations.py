"""Organizations: units of the territory hierarchy, their members and KPI statistics; the
administrators' endpoints to create units and place or move members (audited, idempotent).
See docs/organizations.md."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal, Self

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, Field
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.principal import UserPrincipal
from api.callers import PUBLIC, Admin, OrgRead
from api.common import usdc
from api.deps import RedisDep, SessionDep
from api.envelope import PageQuery, meta, page, resource, single
from api.idempotency import IdempotencyKey, write_context
from api.openapi import problems
from api.typed import Attributes, Many, One, Shape
from core.time import iso
from db.models.organizations import OrgMembership, OrgUnit, StationDailyKpi
from organizations import bonus, units
from organizations.units import MemberRow, NewUnit, StationDays

router = APIRouter(prefix="/v1/organizations", tags=["organizations"])
admin_router = APIRouter(prefix="/v1/admin/organizations", tags=["admin: organizations"])

UnitId = Annotated[
    str, Path(pattern=r"^(station|matrix|sector|system)-[1-9][0-9]{0,17}$", examples=["station-1"])
]
UnitType = Literal["station", "matrix", "sector", "system"]

_PUBLIC_PROBLEMS = problems(429, subject="unit")
PROBLEMS = _PUBLIC_PROBLEMS | problems(401, 403, 422)
ADMIN_PROBLEMS = PROBLEMS | problems(
    caller="admin",
    subject="unit or user",
    s409="`unit-exists` (other attributes), `unit-full`, `station-full`, "
    "`idempotency-key-reused`, `idempotency-key-in-use`",
    s422="`validation-error`, `invalid-parent`, `invalid-unit`",
)


class UnitAttributes(Attributes):
    unit_type: UnitType
    number: int
    name: str
    parent: str | None = Field(description="The parent unit's id, e.g. matrix-3")
    manager_uid: str | None
    territory_mint: str | None = Field(description="The territory NFT's mint once minted")
    member_count: int
    lit: bool
    qualifying_days: str = Field(description="Decimal string: a station's count, or the average")
    state_day: date | None = Field(description="Last day of the window the state is for")
    lit_since: date | None
    created_at: str

    @classmethod
    def of(cls, unit: OrgUnit, parent: OrgUnit | None, members: int) -> Self:
        return cls.of_row(
            unit,
            parent=units.ref(parent) if parent else None,
            member_count=members,
            qualifying_days=str(unit.qualifying_days),
        )


async def _unit_body(session: SessionDep, unit: OrgUnit) -> dict[str, Any]:
    parent = await units.parent_of(session, unit)
    counts = await units.member_counts(session, [unit])
    attributes = UnitAttributes.of(unit, parent, counts[unit.id])
    return single("organization", units.ref(unit), attributes)


@router.get("", response_model=Many[UnitAttributes], responses=PROBLEMS)
async def list_organizations(
    user: OrgRead,
    session: SessionDep,
    params: PageQuery,
    type: Annotated[UnitType | None, Query(description="Only units of this type")] = None,
    parent: Annotated[
        str | None, Query(description="Only the children of this unit, e.g. sector-1")
    ] = None,
) -> dict[str, Any]:
    """Units of the hierarchy, filtered by type and parent, paged."""
    rows, total = await units.list_units(session, type, parent, params)
    counts = await units.member_counts(session, rows)
    parents = {u.id: await units.parent_of(session, u) for u in rows}
    shown = [(units.ref(u), UnitAttributes.of(u, parents[u.id], counts[u.id])) for u in rows]
    items = [resource("organization", ref, attributes) for ref, attributes in shown]
    return page(items, total, params)


@router.get("/{unit_id}", response_model=One[UnitAttributes], responses=PROBLEMS)
async def get_organization(unit_id: UnitId, user: OrgRead, session: SessionDep) -> dict[str, Any]:
    """One unit: type, number, name, parent, manager, territory NFT, members and state."""
    unit = await units.get(session, unit_id)
    return await _unit_body(session, unit)


class MemberAttributes(Attributes):
    uid: str
    display_name: str | None
    station: str
    joined_at: str

    @classmethod
    def of(cls, row: MemberRow) -> Self:
        return cls.of_row(row)


@router.get("/{unit_id}/members", response_model=Many[MemberAttributes], responses=PROBLEMS)
async def organization_members(
    unit_id: UnitId, user: OrgRead, session: SessionDep, params: PageQuery
) -> dict[str, Any]:
    """Current members of a unit (of every station under it), oldest first, paged."""
    unit = await units.get(session, unit_id)
    rows, total = await units.members(session, unit, params)
    items = [resource("organization_member", r.uid, MemberAttributes.of(r)) for r in rows]
    return page(items, total, params)


class DailyKpi(Shape):
    day: date
    member_count: int
    mining_input: str = Field(description="USDC, decimal string")
    avg_input: str = Field(description="USDC per member, rounded down to 6 decimals")
    qualifies: bool

    @classmethod
    def of(cls, row: StationDailyKpi) -> Self:
        return cls.of_row(row, mining_input=usdc(row.total_input), avg_input=usdc(row.avg_input))


class StationSummary(Shape):
    id: str
    qualifying_days: int
    mining_input: str

    @classmethod
    def of(cls, d: StationDays) -> Self:
        return cls(
            id=f"station-{d.number}",
            qualifying_days=d.qualifying_days,
            mining_input=usdc(d.input_total),
        )


class UnitStatsAttributes(Attributes):
    unit_type: UnitType
    window_start: date
    window_end: date
    member_count: int
    stations: int
    mining_input_30d: str = Field(description="USDC, decimal string")
    qualifying_days: str = Field(description="A station's count, or the stations' average")
    lit: bool
    state_day: date | None
    daily: list[DailyKpi] | None = Field(None, description="Stations: each day of the window")
    station_days: list[StationSummary] | None = Field(
        None, description="Higher units: each station under it"
    )


# The public aggregate reads every station of a unit over 30 days: each API process computes
# it at most once a minute per unit and day (issue 31, L4), whoever asks how often.
STATS_CACHE_SECONDS = 60.0
_STATS: dict[tuple[str, date], tuple[float, dict[str, Any]]] = {}


@router.get(
    "/{unit_id}/stats",
    response_model=One[UnitStatsAttributes],
    responses=_PUBLIC_PROBLEMS,
    dependencies=[Depends(PUBLIC)],
)
async def organization_stats(unit_id: UnitId, session: SessionDep) -> dict[str, Any]:
    """Public: members, 30-day mining input, qualifying days and lit state of a unit."""
    day = datetime.now(UTC).date()
    cached = _STATS.get((unit_id, day))
    if cached is not None and cached[0] > time.monotonic():
        return {**cached[1], "meta": meta()}  # this request's own id
    unit = await units.get(session, unit_id)
    s = await units.stats(session, unit, day)
    attributes = UnitStatsAttributes(
        unit_type=unit.unit_type,
        window_start=s["window_start"],
        window_end=s["window_end"],
        member_count=s["member_count"],
        stations=s["stations"],
        mining_input_30d=usdc(s["mining_input_30d"]),
        qualifying_days=str(Decimal(s["qualifying_days"]).quantize(Decimal("0.01"))),
        lit=s["lit"],
        state_day=s["state_day"],
        daily=[DailyKpi.of(r) for r in s["daily"]] if "daily" in s else None,
        station_days=[StationSummary.of(d) for d in s["station_days"]]
        if "station_days" in s
        else None,
    )
    body = single("organization_stats", units.ref(unit), attributes)
    if len(_STATS) > 10_000:
        _STATS.clear()
    _STATS[(unit_id, day)] = (time.monotonic() + STATS_CACHE_SECONDS, body)
    return body


# --- administrators -------------------------------------------------------------------------


class UnitIn(BaseModel):
    unit_type: UnitType
    number: int = Field(ge=1, le=2**63 - 1, description="The unit's id within its type")
    name: str = Field(min_length=1, max_length=100)
    parent: str | None = Field(
        None,
        pattern=r"^(station|matrix|sector|system)-[1-9][0-9]{0,17}$",
        description="The parent's id: a station's matrix, a matrix's sector, a sector's system",
    )
    manager_uid: str | None = Field(None, min_length=1, max_length=100)
    territory_mint: str | None = Field(None, pattern=r"^[1-9A-HJ-NP-Za-km-z]{32,44}$")
    idempotency_key: IdempotencyKey = None


@admin_router.post(
    "", status_code=201, response_model=One[UnitAttributes], responses=ADMIN_PROBLEMS
)
async def create_organization(payload: UnitIn, admin: Admin, request: Request) -> Any:
    """Create a unit under its parent (administrator; the same unit again answers 200)."""
    async with write_context(request, admin, operation="organizations.create") as ctx:
        unit, created = await units.create(
            ctx.session,
            NewUnit(
                payload.unit_type, payload.number, payload.name, payload.parent,
                payload.manager_uid, payload.territory_mint,
            ),
        )  # fmt: skip
        body = await _unit_body(ctx.session, unit)
        return ctx.respond(201 if created else 200, body)


class RemovalIn(BaseModel):
    idempotency_key: IdempotencyKey = None


class PlacementIn(RemovalIn):  # the removal's body, plus whom to place
    user_uid: str = Field(min_length=1, max_length=100)


class MembershipAttributes(Attributes):
    user_uid: str
    station: str | None
    joined_at: str | None
    left_at: str | None
    moved: bool = Field(description="False when nothing changed")


def _membership(
    m: OrgMembership | None, uid: str, station: str | None, moved: bool
) -> dict[str, Any]:
    return single(
        "organization_membership",
        uid,
        MembershipAttributes(
            user_uid=uid,
            station=station,
            joined_at=iso(m.joined_at) if m and station else None,
            left_at=iso(m.left_at) if m else None,
            moved=moved,
        ),
    )


async def _change_membership(
    request: Request,
    admin: UserPrincipal,
    redis: Redis,
    uid: str,
    operation: str,
    change: Callable[[AsyncSession], Awaitable[tuple[OrgMembership | None, str | None, bool]]],
) -> Any:
    """One commit for the change (and its answer); the bonus cache learns the station after."""
    async with write_context(request, admin, operation=operation, user_uid=uid) as ctx:
        membership, station, moved = await change(ctx.session)
        response = ctx.respond(200, _membership(membership, uid, station, moved))
    station_id = membership.station_id if membership is not None and station else None
    await bonus.set_member(redis, uid, station_id)
    return response


@admin_router.post(
    "/{unit_id}/members", response_model=One[MembershipAttributes], responses=ADMIN_PROBLEMS
)
async def place_member(
    unit_id: UnitId, payload: PlacementIn, admin: Admin, request: Request, redis: RedisDep
) -> Any:
    """Place a user in a station, moving them out of their current one (administrator)."""

    async def place(session: AsyncSession) -> tuple[OrgMembership, str, bool]:
        membership, moved = await units.place(session, unit_id, payload.user_uid, datetime.now(UTC))
        return membership, unit_id, moved

    operation = "organizations.place_member"
    return await _change_membership(request, admin, redis, payload.user_uid, operation, place)


@admin_router.post(
    "/members/{uid}/leave", response_model=One[MembershipAttributes], responses=ADMIN_PROBLEMS
)
async def remove_member(
    uid: str, payload: RemovalIn, admin: Admin, request: Request, redis: RedisDep
) -> Any:
    """End a user's membership of their station (administrator)."""

    async def remove(session: AsyncSession) -> tuple[OrgMembership | None, None, bool]:
        ended = await units.remove(session, uid, datetime.now(UTC))
        return ended, None, ended is not None

    operation = "organizations.remove_member"
    return await _change_membership(request, admin, redis, uid, operation, remove)
