"""Legacy reference routes: plain JSON, the identity provider's ID token, and the legacy
401 body ``{"error": "unauthorized", "message": ..., "code": 401}``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from access.callers import id_token
from api.auth.principal import UserPrincipal
from api.callers import LEGACY_PROBLEMS, LegacyCallers
from api.deps import SessionDep
from api.openapi import problems
from api.typed import Shape
from core.errors import NotFound
from core.time import iso
from db.models import User
from organizations import units

router = APIRouter(tags=["legacy"])

# The legacy form: an access token with the scope, or an ID token of the gateway's own client
# or of a project's client the user granted the scope (never any client's: issue 38, L6).
LegacyProfileRead = Annotated[UserPrincipal, Depends(LegacyCallers(id_token("user:read")))]
LegacyTeamRead = Annotated[UserPrincipal, Depends(LegacyCallers(id_token("org:read")))]


class LegacyProfileBody(Shape):
    uid: str
    email: str | None
    role: str
    station_id: int | None
    unit_id: int | None
    created_at: str


@router.get(
    "/users/profile",
    response_model=LegacyProfileBody,
    responses=LEGACY_PROBLEMS | problems(s404="No such user (`not-found`)"),
)
async def legacy_profile(user: LegacyProfileRead, session: SessionDep) -> dict[str, Any]:
    """Legacy profile (plain JSON; bearer is an ID token)."""
    row = await session.get(User, user.uid)
    if row is None:
        raise NotFound(f"User {user.uid} does not exist")
    return {
        "uid": row.uid,
        # Only a token granted the `email` scope sees the address (as on /v1/users/me).
        "email": row.email if "email" in user.scopes or user.is_admin else None,
        "role": row.role,
        "station_id": row.station_id,
        "unit_id": row.unit_id,
        "created_at": iso(row.created_at),
    }


class LegacyTeamUnit(Shape):
    id: int
    name: str
    member_count: int


class LegacyManager(Shape):
    uid: str
    name: str | None


class LegacyTeamBody(Shape):
    station: LegacyTeamUnit | None
    unit: LegacyTeamUnit | None
    manager: LegacyManager | None


@router.get(
    "/organization/my-team",
    response_model=LegacyTeamBody,
    responses=LEGACY_PROBLEMS,
)
async def legacy_my_team(user: LegacyTeamRead, session: SessionDep) -> dict[str, Any]:
    """Legacy team: the caller's station, its matrix (``unit``) and the station's manager."""
    station = await units.user_station(session, user.uid)
    if station is None:
        return {"station": None, "unit": None, "manager": None}
    matrix = await units.parent_of(session, station)
    counts = await units.member_counts(session, [u for u in (station, matrix) if u is not None])
    manager = await session.get(User, station.manager_uid) if station.manager_uid else None

    def brief(unit: Any) -> dict[str, Any] | None:
        if unit is None:
            return None
        return {"id": unit.number, "name": unit.name, "member_count": counts[unit.id]}

    return {
        "station": brief(station),
        "unit": brief(matrix),
        "manager": {"uid": manager.uid, "name": manager.display_name or manager.username}
        if manager
        else None,
    }
