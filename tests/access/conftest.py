"""Access tests: the real app (lifespan included) on real PostgreSQL and Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Security
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.app import create_app
from api.auth.deps import current_project
from api.auth.principal import ProjectPrincipal
from core.config import Settings
from tests.factories import World, clear_rate_windows

BASE = "http://127.0.0.1:8000"

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


@pytest.fixture(scope="session")
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    application = build_app(settings)
    async with application.router.lifespan_context(application):
        # Tests change projects between calls; see every change at once.
        application.state.project_authenticator.cache_seconds = 0.0
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as c:
        yield c


@pytest.fixture(autouse=True)
async def _fresh_rate_windows(redis: Redis) -> None:
    await clear_rate_windows(redis)


@pytest.fixture
def world(
    session_maker: async_sessionmaker[AsyncSession], settings: Settings, app: FastAPI
) -> World:
    return World(session_maker, settings, app)
