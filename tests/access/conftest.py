"""Access tests: the real app (lifespan included) on real PostgreSQL and Redis, with two probe
routes of its own. ``client`` and ``world`` come from tests/conftest.py."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Security

from api.app import create_app
from api.auth.deps import current_project
from api.auth.principal import ProjectPrincipal
from core.config import Settings
from tests.stack import BASE, Stack

__all__ = ["BASE", "STACK", "build_app"]

probe = APIRouter()


@probe.get("/v1/_probe/funds")
async def _probe_funds(
    project: ProjectPrincipal = Security(current_project, scopes=["funds:manage"]),
) -> dict[str, Any]:
    return {"project_id": project.project_id, "method": project.method}


@probe.get("/v1/_probe/bare")
async def _probe_bare() -> dict[str, str]:
    return {"ok": "yes"}


def build_app(settings: Settings) -> FastAPI:
    app = create_app(settings)
    app.include_router(probe)  # a project-scoped read and a bare endpoint, for tests only
    return app


# On PostgreSQL and Redis alone: no chain, no Temporal, no worker.
STACK = Stack("access", on="settings", temporal=False, build=build_app)
app_settings, queue, deps, worker, app = STACK.fixtures()
