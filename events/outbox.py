"""The one function every capability emits events through.

``emit`` only adds the row to the caller's session (the caller commits with its state change);
delivery reads undispatched rows later. Emit only outcomes that are final on chain.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import CTE, ColumnElement, DateTime, bindparam, literal, select
from sqlalchemy.dialects.postgresql import JSONB, insert
from sqlalchemy.ext.asyncio import AsyncSession

from core.time import iso
from db.base import table_of
from db.models.events import EVENT_TYPES, Event


def event_body(event: Event) -> dict[str, Any]:
    """The webhook body of an event: ``{id, type, created_at, data}``."""
    return {
        "id": event.id,
        "type": event.type,
        "created_at": iso(event.created_at),
        "data": event.data,
    }


async def emit(
    session: AsyncSession,
    *,
    project_id: int,
    type: str,
    data: dict[str, Any],
    event_id: str | None = None,
) -> Event:
    """Record an event in the caller's transaction. ``event_id`` makes a retried emit a no-op:
    pass one derived from the operation (e.g. ``f"evt_{transfer_id}_completed"``)."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type!r}")
    event_id = event_id or f"evt_{uuid.uuid4().hex}"
    # One statement (issue 43): the INSERT says by its RETURNING whether the id was new; only a
    # repeat reads the event recorded before. A concurrent emit of the same id waits for the
    # other transaction and then inserts nothing: never two events, never a unique violation.
    event = (
        await session.execute(
            insert(Event)
            .values(
                id=event_id,
                project_id=project_id,
                type=type,
                data=data,
                created_at=datetime.now(UTC),
            )
            .on_conflict_do_nothing(index_elements=["id"])
            .returning(Event)
        )
    ).scalar_one_or_none()
    if event is None:
        event = await session.get(Event, event_id)
        if event is None:  # the conflicting row committed, so a new statement sees it
            raise RuntimeError(f"event {event_id!r} neither inserted nor found")
    return event


def emitted_with(rows: str, data: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The parameters of an ``emit_with(rows, ...)`` built once: each moved row's event
    data by row id, and the events' time (now, as ``emit`` stamps its event)."""
    return {f"{rows}_event_data": data, f"{rows}_event_at": datetime.now(UTC)}


async def emit_many(session: AsyncSession, events: Sequence[dict[str, Any]]) -> None:
    """Record events (``{id, project_id, type, data}``) in the caller's transaction with one
    INSERT; an id already recorded is left as it is (a retried emit is a no-op, as ``emit``)."""
    if not events:
        return
    unknown = {e["type"] for e in events} - set(EVENT_TYPES)
    if unknown:
        raise ValueError(f"unknown event type(s) {sorted(unknown)!r}")
    now = datetime.now(UTC)
    await session.execute(
        insert(table_of(Event)).on_conflict_do_nothing(index_elements=["id"]),
        [{**e, "created_at": now} for e in events],
    )


def emit_with(rows: CTE, event_id: ColumnElement[str], type: str) -> CTE:
    """``emit_many`` inside the statement that moves ``rows`` (a data-modifying CTE returning
    ``id`` and ``project_id``): one event per row it moved, so no event is written for a row
    the move left alone. Add the returned CTE to that statement (``add_cte``): the events cost
    no statement of their own (issue 43). An id already recorded is left as it is. The
    statement is built once, for every execution; each passes the events' data by row id (and
    their time) as ``emitted_with(rows.name, data)``."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type!r}")
    table = table_of(Event)
    by_id = bindparam(f"{rows.name}_event_data", type_=JSONB)
    at = bindparam(f"{rows.name}_event_at", type_=DateTime(timezone=True))
    return (
        insert(table)
        .from_select(
            ["id", "project_id", "type", "data", "created_at"],
            select(
                event_id,
                rows.c.project_id,
                literal(type),
                by_id.op("->", return_type=JSONB)(rows.c.id),
                at,
            ),
        )
        .on_conflict_do_nothing(index_elements=["id"])
        .cte(f"{rows.name}_events")
    )
