"""Legacy reference routes: plain JSON, the identity provider's ID token, and the legacy
401 body ``{"error": "unauthorized", "message": ..., "code": 401}``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from api.auth.deps import id_token_user, oauth2_scheme
from api.auth.principal import UserPrincipal
from api.deps import SessionDep
from core.errors import DomainError, NotFound
from db.models import User
from organizations import units

router = APIRouter(tags=["legacy"])


class LegacyUnauthorized(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def _on_legacy(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LegacyUnauthorized)
    return JSONResponse(
        {"error": "unauthorized", "message": exc.message, "code": 401},
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )


def install_legacy(app: FastAPI) -> None:
    app.add_exception_handler(LegacyUnauthorized, _on_legacy)


async def legacy_user(
    request: Request, token: str | None = Depends(oauth2_scheme)
) -> UserPrincipal:
    try:
        return await id_token_user(request, token)
    except DomainError as exc:
        if exc.status == 401:
            raise LegacyUnauthorized(exc.detail) from exc
        raise


LegacyUser = Annotated[UserPrincipal, Depends(legacy_user)]


@router.get(
    "/users/profile",
    responses={401: {"description": "`{error: unauthorized, message, code: 401}`"}},
)
async def legacy_profile(user: LegacyUser, session: SessionDep) -> dict[str, Any]:
    """Legacy profile (plain JSON; bearer is an ID token)."""
    row = await session.get(User, user.uid)
    if row is None:
        raise NotFound(f"User {user.uid} does not exist")
    return {
        "uid": row.uid,
        "email": row.email,
        "role": row.role,
        "station_id": row.station_id,
        "unit_id": row.unit_id,
        "created_at": row.created_at.isoformat(),
    }


class LegacyTeamUnit(BaseModel):
    id: int
    name: str
    member_count: int


class LegacyManager(BaseModel):
    uid: str
    name: str | None


class LegacyTeam(BaseModel):
    station: LegacyTeamUnit | None
    unit: LegacyTeamUnit | None
    manager: LegacyManager | None


@router.get(
    "/organization/my-team",
    response_model=LegacyTeam,
    responses={401: {"description": "`{error: unauthorized, message, code: 401}`"}},
)
async def legacy_my_team(user: LegacyUser, session: SessionDep) -> dict[str, Any]:
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
