"""An app wired to the session's real services, driven in-process over ASGI (its lifespan run
per test, so a test may change the app before it starts)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from api.app import create_app
from core.config import Settings
from tests.stack import asgi_client, running_app


@pytest.fixture(scope="session")
def app_settings(stack_settings: Settings) -> Settings:
    return stack_settings


async def start_app(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with (
        running_app(app, fresh_projects=False),
        asgi_client(app, base_url="http://test", wait_seconds=5.0) as c,
    ):
        yield c


@pytest.fixture
async def app(app_settings: Settings) -> FastAPI:
    return create_app(app_settings)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async for c in start_app(app):
        yield c
