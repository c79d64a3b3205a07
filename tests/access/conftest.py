"""Access tests: the real app (lifespan included) on real PostgreSQL and Redis, with two probe
routes of its own. ``client`` and ``world`` come from tests/conftest.py."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse

from access.callers import project, user
from api.app import create_app
from api.auth.declaration import Callers
from api.auth.principal import ProjectPrincipal, UserPrincipal
from api.callers import PUBLIC
from api.routing import LightRoute
from core.config import Settings
from tests.stack import BASE, Stack

__all__ = ["BASE", "STACK", "build_app"]

probe = APIRouter()


@probe.get("/v1/_probe/funds")
async def _probe_funds(
    caller: Annotated[ProjectPrincipal, Depends(Callers(project("funds:manage")))],
) -> dict[str, Any]:
    return {"project_id": caller.project_id, "method": caller.method}


@probe.get("/v1/_probe/bare", dependencies=[Depends(PUBLIC)])
async def _probe_bare() -> dict[str, str]:
    return {"ok": "yes"}


# A user's or a project's read, declared on a plain route and on a ``LightRoute`` (which
# solves the caller as one dependency): tests/access/test_light_route.py compares them.
Players = Annotated[
    UserPrincipal | ProjectPrincipal, Depends(Callers(user("mining:read"), project("mining:read")))
]
light_probe = APIRouter(route_class=LightRoute)


async def _probe_players(who: Players) -> dict[str, Any]:
    if isinstance(who, ProjectPrincipal):
        return {"project_id": who.project_id, "method": who.method}
    return {"uid": who.uid, "scopes": sorted(who.scopes)}


async def _probe_players_answer(who: Players, request: Request) -> Response:
    """The same read answering its own ``Response``: a ``LightRoute`` runs its caller's check
    and then it without FastAPI's dependency solving (``api.routing._direct``)."""
    return JSONResponse({"path": request.url.path, **await _probe_players(who)})


probe.get("/v1/_probe/players")(_probe_players)
light_probe.get("/v1/_probe/light-players")(_probe_players)
probe.get("/v1/_probe/players-answer")(_probe_players_answer)
light_probe.get("/v1/_probe/direct-players-answer")(_probe_players_answer)


def build_app(settings: Settings) -> FastAPI:
    app = create_app(settings)
    app.include_router(probe)  # a project-scoped read and a bare endpoint, for tests only
    app.include_router(light_probe)
    return app


# On PostgreSQL and Redis alone: no chain, no Temporal, no worker. With no chain to reach, a
# call that reads it is answered 503 at once, not after the API's retries of an unreachable
# provider (chain/rpc.py): the matrix makes a thousand such calls.
STACK = Stack(
    "access",
    on="settings",
    temporal=False,
    build=build_app,
    changes={"solana_rpc_retry_seconds": 0.0},
)
app_settings, queue, deps, worker, app = STACK.fixtures()
