"""The outbox records an event with its state change, once."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import Event
from events.outbox import emit, event_body


async def test_event_exists_only_if_its_transaction_commits(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    kept, dropped = f"evt_{uuid.uuid4().hex}", f"evt_{uuid.uuid4().hex}"
    async with session_maker() as session:
        await emit(session, project_id=1, type="funds.locked", data={"a": "1"}, event_id=kept)
        await session.commit()
    async with session_maker() as session:
        await emit(session, project_id=1, type="funds.locked", data={}, event_id=dropped)
        await session.rollback()
    async with session_maker() as session:
        assert await session.get(Event, kept) is not None
        assert await session.get(Event, dropped) is None


async def test_emit_with_the_same_id_is_a_no_op(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    event_id = f"evt_{uuid.uuid4().hex}"
    for _ in range(2):
        async with session_maker() as session:
            event = await emit(
                session, project_id=7, type="transfer.completed", data={"n": 1}, event_id=event_id
            )
            await session.commit()
    async with session_maker() as session:
        count = await session.scalar(select(func.count()).where(Event.id == event_id))
    assert count == 1
    body = event_body(event)
    assert body["id"] == event_id and body["type"] == "transfer.completed"
    assert body["data"] == {"n": 1} and body["created_at"].endswith("Z")


async def test_unknown_event_types_are_refused(
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    async with session_maker() as session:
        with pytest.raises(ValueError, match="unknown event type"):
            await emit(session, project_id=1, type="funds.stolen", data={})
