"""Organization tests: the real app, worker, PostgreSQL, Redis and Temporal. The daily job
works on every station at once, so each test starts from empty organization tables."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from organizations.bonus import MEMBER_KEY, STATION_KEY
from tests.stack import running_app
from tests.webhooks.support import fast_webhooks, worker  # noqa: F401  (fixtures)


@pytest.fixture(scope="session")
async def app(
    worker_settings: Settings, temporal_env: WorkflowEnvironment, session_tmp: Path
) -> AsyncIterator[FastAPI]:
    """The webhook suite's app, with avatars stored in the session's temp directory."""
    settings = worker_settings.model_copy(update={"avatar_dir": session_tmp / "avatars"})
    async with running_app(settings, temporal=temporal_env.client) as application:
        yield application


@pytest.fixture
async def clean(
    session_maker: async_sessionmaker[AsyncSession], redis: Redis
) -> AsyncIterator[None]:
    async with session_maker() as s:
        await s.execute(
            text(
                "TRUNCATE org_station_kpis, org_kpi_progress, org_memberships, org_units;"
                "DELETE FROM mining_activities WHERE workflow_id = 'bulk';"
                "UPDATE users SET station_id = NULL, unit_id = NULL WHERE station_id IS NOT NULL"
            )
        )
        await s.commit()
    # The public global figures are cached a minute per window: another test's read (the
    # two-mint worlds share this Redis) must not answer for this test's data.
    await redis.delete(
        MEMBER_KEY, STATION_KEY, *[k async for k in redis.scan_iter("mining:global-stats:*")]
    )
    yield
