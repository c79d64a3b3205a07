"""The tech tree: its rules (public), the caller's units with their states and what they miss,
the caller's ``bonus_multiplier``, and the ``unlock`` / ``upgrade`` requests (which light only
what the rule lights). See docs/organizations.md."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_DOWN, Decimal
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field
from redis.asyncio import Redis

from access.ratelimit import Ride
from api.auth.principal import UserPrincipal
from api.callers import PUBLIC, OrgRead
from api.common import usdc
from api.deps import RedisDep, SessionDep
from api.envelope import fast, single
from api.idempotency import IdempotencyKey, write_context
from api.openapi import problems
from api.ratelimit import ridden, rides
from api.routing import LightRoute
from api.typed import Attributes, One, Shape
from organizations import bonus, techtree, units
from organizations.rules import (
    BONUS_PERCENT,
    LEVELS,
    MIN_AVG_INPUT,
    MIN_MEMBERS,
    MIN_QUALIFYING_DAYS,
    STATION_CAPACITY,
    WINDOW_DAYS,
    multiplier,
)

router = APIRouter(prefix="/v1/tech-tree", tags=["tech tree"], route_class=LightRoute)


PROBLEMS = problems(401, 403, 429)
WRITE_PROBLEMS = PROBLEMS | problems(
    s409="`not-a-member` (no station), `idempotency-key-reused`, `idempotency-key-in-use`",
    s422="`validation-error` (idempotency_key)",
)


class Level(Shape):
    unit_type: str
    bonus_percent: int
    cumulative_percent: int
    lighting_condition: str


class TechTreeConfigAttributes(Attributes):
    levels: list[Level]
    window_days: int
    min_qualifying_days: int
    min_members: int
    station_capacity: int
    min_avg_input_usdc: str = Field(description="Per member per day, decimal string")
    schedule: str = Field(description="When the daily job runs")


@router.get(
    "/config",
    response_model=One[TechTreeConfigAttributes],
    responses=problems(429),
    dependencies=[Depends(PUBLIC)],
)
async def config() -> dict[str, Any]:
    """Public: the levels, their bonuses and the lighting thresholds."""
    levels, cumulative = [], 0
    for kind in LEVELS:
        cumulative += BONUS_PERCENT[kind]
        condition = (
            f"{MIN_QUALIFYING_DAYS} or more qualifying days in the last {WINDOW_DAYS}"
            if kind == "station"
            else f"the average qualifying days of its stations is {MIN_QUALIFYING_DAYS} or more"
        )
        levels.append(
            {
                "unit_type": kind,
                "bonus_percent": BONUS_PERCENT[kind],
                "cumulative_percent": cumulative,
                "lighting_condition": condition,
            }
        )
    return single(
        "tech_tree_config",
        "current",
        {
            "levels": levels,
            "window_days": WINDOW_DAYS,
            "min_qualifying_days": MIN_QUALIFYING_DAYS,
            "min_members": MIN_MEMBERS,
            "station_capacity": STATION_CAPACITY,
            "min_avg_input_usdc": usdc(MIN_AVG_INPUT),
            "schedule": "daily at 00:30 UTC, for the day before",
        },
    )


class UnitState(Shape):
    id: str
    unit_type: str
    name: str
    lit: bool
    bonus_percent: int
    qualifying_days: str = Field(description="A station's count, or its stations' average")
    stations: int
    missing_days: str
    member_count: int | None = Field(None, description="Stations: current members")
    last_avg_input: str | None = Field(None, description="Stations: the last day's average")
    missing_members: int | None = None
    missing_avg_input: str | None = None
    changed: bool = Field(False, description="Lit by this request")


class TreeAttributes(Attributes):
    station: str | None
    window_start: str
    window_end: str
    units: list[UnitState]
    bonus_percent: int
    bonus_multiplier: float = Field(description="1 + bonus: 1.3 means a 30 % bonus")


def _two(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.01"), ROUND_DOWN))


def _tree(uid: str, tree: techtree.TreeView) -> dict[str, Any]:
    states = [
        UnitState(
            id=units.ref(s.unit),
            unit_type=s.unit.unit_type,
            name=s.unit.name,
            lit=s.lit,
            bonus_percent=BONUS_PERCENT[s.unit.unit_type],
            qualifying_days=_two(s.qualifying_days),
            stations=s.stations,
            missing_days=_two(s.missing_days),
            member_count=s.member_count,
            last_avg_input=usdc(s.last_avg_input),
            missing_members=s.missing_members,
            missing_avg_input=usdc(s.missing_avg_input),
            changed=s.changed,
        )
        for s in tree.units
    ]
    percent = tree.bonus_percent
    attributes = TreeAttributes(
        station=units.ref(tree.station) if tree.station else None,
        window_start=tree.window_start.isoformat(),
        window_end=tree.window_end.isoformat(),
        units=states,
        bonus_percent=percent,
        bonus_multiplier=float(multiplier(percent)),
    )
    return single("tech_tree_user", uid, attributes)


@router.get("/user", response_model=One[TreeAttributes], responses=PROBLEMS)
async def user_tree(user: OrgRead, session: SessionDep) -> dict[str, Any]:
    """The caller's station and the units above it: states, days, and what is missing."""
    tree = await techtree.view(session, user.uid, datetime.now(UTC).date())
    return _tree(user.uid, tree)


class BonusAttributes(Attributes):
    bonus_percent: int
    bonus_multiplier: float = Field(description="Applied to every mining reward: 1.3 = +30 %")


def _bonus_read(uid: str) -> Ride:
    return Ride(bonus.READ_SCRIPT, bonus.READ_KEYS, [uid])


@router.get("/bonus", response_model=One[BonusAttributes], responses=PROBLEMS)
@rides(_bonus_read)  # the cache's read goes with the caller's rate-limit count
async def user_bonus(user: OrgRead, request: Request) -> Response:
    """The caller's ``bonus_multiplier`` (from the cache the daily job fills)."""
    redis: Redis = request.app.state.redis  # no RedisDep: one dependency fewer to solve
    ride = ridden(request, user.uid)
    if ride is not None:
        percent = bonus.decoded_percents([user.uid], ride.reply)[user.uid]
    else:
        percent = (await bonus.cached_percents(redis, [user.uid]))[user.uid]
    if percent is None:  # not cached yet (or Redis unavailable): the database, written back
        async with request.app.state.session_maker() as session:
            percent = (await bonus.percents(session, redis, [user.uid]))[user.uid]
    return fast(
        single(
            "tech_tree_bonus",
            user.uid,
            {"bonus_percent": percent, "bonus_multiplier": float(multiplier(percent))},
        )
    )


class LightIn(BaseModel):
    idempotency_key: IdempotencyKey = None


async def _light(request: Request, user: UserPrincipal, redis: RedisDep, upgrade: bool) -> Any:
    operation = "tech_tree.upgrade" if upgrade else "tech_tree.unlock"
    async with write_context(request, user, operation=operation, user_uid=user.uid) as ctx:
        today = datetime.now(UTC).date()
        tree = await (techtree.upgrade if upgrade else techtree.unlock)(
            ctx.session, user.uid, today
        )
        response = ctx.respond(200, _tree(user.uid, tree))
        changed = [s.unit for s in tree.units if s.changed]
        if changed:
            station_ids: list[int] = []
            for unit in changed:
                station_ids += list(await ctx.session.scalars(units.station_ids_under(unit)))
    if changed:
        async with request.app.state.session_maker() as session:
            await bonus.refresh_stations(session, redis, station_ids)
    return response


@router.post("/unlock", response_model=One[TreeAttributes], responses=WRITE_PROBLEMS)
async def unlock(payload: LightIn, user: OrgRead, request: Request, redis: RedisDep) -> Any:
    """Evaluate the caller's station now (window ending yesterday); light it if it earned it."""
    return await _light(request, user, redis, upgrade=False)


@router.post("/upgrade", response_model=One[TreeAttributes], responses=WRITE_PROBLEMS)
async def upgrade(payload: LightIn, user: OrgRead, request: Request, redis: RedisDep) -> Any:
    """Evaluate the units above the caller's station; light those that earned it."""
    return await _light(request, user, redis, upgrade=True)
