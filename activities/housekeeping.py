"""Housekeeping activities: delete what has outlived its purpose (bounded batches, one commit
each, safe to repeat)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import delete, func, select
from temporalio import activity

from db.models.access import IdempotencyRecord

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class PurgeRequest:
    batch: int = 5000


@dataclass
class PurgeResult:
    deleted: int
    more: bool


class HousekeepingActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self._sessions = deps.sessions

    @activity.defn(name="housekeeping.purge_idempotency")
    async def purge_idempotency(self, request: PurgeRequest) -> PurgeResult:
        """Delete up to ``batch`` idempotency records past their 24 h (an expired key is free
        again anyway: write_context replaces such a row, so deleting it changes no answer)."""
        expired = (
            select(IdempotencyRecord.id)
            .where(IdempotencyRecord.expires_at <= func.now())
            .limit(request.batch)
        )
        async with self._sessions() as session:
            result = await session.execute(
                delete(IdempotencyRecord).where(IdempotencyRecord.id.in_(expired.scalar_subquery()))
            )
            await session.commit()
        deleted = int(getattr(result, "rowcount", 0) or 0)
        return PurgeResult(deleted=deleted, more=deleted >= request.batch)
