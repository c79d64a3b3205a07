"""The one pager of a listing: a page of any ``Select`` and the number of rows it has in all.

    rows, total = await page_of(session, select(Hold).where(...), [Hold.created_at], params)

The window is anything with ``offset`` and ``per_page`` (``api.envelope.PageParams``, the
console's page, ``Window`` for a plain offset and limit). The listings themselves stay with
their services (``engine.operators.listing``, ``onboarding.queries.applications``): a service
says which rows, the adapter which page of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession


class Paging(Protocol):
    """Which rows of a listing: ``per_page`` of them after the first ``offset``."""

    @property
    def offset(self) -> int: ...

    @property
    def per_page(self) -> int: ...


@dataclass(frozen=True)
class Window:
    """A plain offset and limit (a legacy route's ``?limit=&offset=``)."""

    offset: int
    per_page: int


async def page_of(
    session: AsyncSession,
    statement: Select[*tuple[Any, ...]],
    order: Sequence[Any],
    window: Paging,
) -> tuple[list[Any], int]:
    """One page of ``statement`` in ``order`` and the count of all its rows. A statement of one
    entity or one column gives its values (``select(Transfer)``: the Transfer rows), one of
    several gives rows of them (``select(A, B.name)``: ``(a, name)`` rows)."""
    counted = statement.order_by(None).subquery()
    total = await session.scalar(select(func.count()).select_from(counted))
    paged = statement.order_by(*order).offset(window.offset).limit(window.per_page)
    if len(statement.column_descriptions) == 1:
        return list(await session.scalars(paged)), total or 0
    return list((await session.execute(paged)).all()), total or 0


async def all_in_order(
    session: AsyncSession, model: type[Any], condition: Any, order: Any
) -> list[Any]:
    """Every row of ``model`` that meets ``condition``, in ``order`` (a resource's short,
    unpaged history: a transfer's states, a withdrawal's decisions)."""
    return list(await session.scalars(select(model).where(condition).order_by(order)))
