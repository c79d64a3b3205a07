"""An app wired to the session's real services, driven in-process over ASGI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from api.app import create_app
from core.config import Settings


@pytest.fixture(scope="session")
def app_settings(
    settings: Settings, temporal_env: WorkflowEnvironment, chain_node: tuple[str, Path]
) -> Settings:
    rpc_url, keys_dir = chain_node
    return settings.model_copy(
        update={
            "temporal_address": temporal_env.client.service_client.config.target_host,
            "solana_rpc_url": rpc_url,
            "chain_keys_dir": keys_dir,
        }
    )


async def start_app(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c,
    ):
        yield c


@pytest.fixture
async def app(app_settings: Settings) -> FastAPI:
    return create_app(app_settings)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async for c in start_app(app):
        yield c
