"""Helpers of the organization tests: units and KPI history written straight to PostgreSQL."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from organizations import units
from organizations.units import NewUnit


async def unit(s: AsyncSession, kind: str, number: int, parent: str | None = None) -> int:
    row, _ = await units.create(s, NewUnit(kind, number, f"{kind} {number}", parent))
    return row.id


async def qualifying_history(
    s: AsyncSession, station_id: int, last: date, qualifying: list[int]
) -> None:
    """KPI rows for the 40 days up to ``last``: day ``last - k`` qualifies when k is listed."""
    await s.execute(
        text(
            """
            INSERT INTO org_station_kpis
                (station_id, day, member_count, total_input, avg_input, qualifies)
            SELECT CAST(:station AS bigint), CAST(:last AS date) - k,
                   950, 950::bigint * 25000000, 25000000,
                   k = ANY(CAST(:qualifying AS int[]))
            FROM generate_series(0, 39) AS k
            """
        ),
        {"station": station_id, "last": last, "qualifying": qualifying},
    )


def days_back(n: int) -> list[int]:
    """Offsets 0..n-1: the n most recent days qualify."""
    return list(range(n))


def day(base: date, offset: int) -> date:
    return base + timedelta(days=offset)
