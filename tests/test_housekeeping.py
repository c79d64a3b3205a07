"""Housekeeping on the real stack: expired idempotency records are purged in batches, live
ones are kept (and keep answering retries)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from db.models.access import IdempotencyRecord
from tests.stack import running_worker
from workflows.housekeeping import HousekeepingInput, HousekeepingWorkflow


async def test_expired_idempotency_records_are_purged_live_ones_kept(
    temporal_env: WorkflowEnvironment,
    worker_settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    scope = f"test:{uuid.uuid4().hex[:8]}"
    now = datetime.now(UTC)
    async with session_maker() as session:
        for i in range(7):
            session.add(
                IdempotencyRecord(
                    scope=scope, key=f"old-{i}", request_hash="h", status_code=200,
                    response_body=b"{}", content_type="application/json",
                    expires_at=now - timedelta(minutes=1 + i),
                )
            )  # fmt: skip
        session.add(
            IdempotencyRecord(
                scope=scope, key="live", request_hash="h", status_code=200, response_body=b"{}",
                content_type="application/json", expires_at=now + timedelta(hours=23),
            )
        )  # fmt: skip
        await session.commit()

    queue = f"test-{uuid.uuid4().hex[:8]}"
    async with running_worker(temporal_env.client, worker_settings, queue):
        # Batches of 3: the backlog is worked off in several activities.
        result = await temporal_env.client.execute_workflow(
            HousekeepingWorkflow.run,
            HousekeepingInput(batch=3),
            id=f"housekeeping-{uuid.uuid4().hex}",
            task_queue=queue,
        )
    assert result.idempotency_records_deleted >= 7  # earlier tests may have left expired ones
    async with session_maker() as session:
        left = list(
            await session.scalars(
                select(IdempotencyRecord.key).where(IdempotencyRecord.scope == scope)
            )
        )
        expired = await session.scalar(
            select(func.count())
            .select_from(IdempotencyRecord)
            .where(IdempotencyRecord.expires_at <= func.now())
        )
    assert left == ["live"] and expired == 0
