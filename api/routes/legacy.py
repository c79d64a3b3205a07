"""Legacy reference routes: plain JSON, the identity provider's ID token, and the legacy
401 body ``{"error": "unauthorized", "message": ..., "code": 401}``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from api.auth.deps import id_token_user, oauth2_scheme
from api.auth.principal import UserPrincipal
from api.deps import SessionDep
from api.errors import NotFound, ProblemError
from db.models import User

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
    except ProblemError as exc:
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
