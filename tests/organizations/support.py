"""Helpers of the organization tests: units and KPI history written straight to PostgreSQL,
and the API calls several test modules make."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from organizations import units
from organizations.units import NewUnit
from tests.factories import World

YESTERDAY = datetime.now(UTC).date() - timedelta(days=1)


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


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def admin_headers(world: World) -> dict[str, str]:
    admin = await world.user("admin")
    return bearer(await world.token(admin.uid, "openid"))


async def post(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], body: dict[str, Any]
) -> httpx.Response:
    return await client.post(
        path, json={**body, "idempotency_key": uuid.uuid4().hex}, headers=headers
    )


async def hierarchy(client: httpx.AsyncClient, admin: dict[str, str]) -> None:
    """system-1 > sector-1 > matrix-1 > station-1, station-2."""
    for body in (
        {"unit_type": "system", "number": 1, "name": "Sol"},
        {"unit_type": "sector", "number": 1, "name": "Inner", "parent": "system-1"},
        {"unit_type": "matrix", "number": 1, "name": "Ring", "parent": "sector-1"},
        {"unit_type": "station", "number": 1, "name": "Alpha", "parent": "matrix-1"},
        {"unit_type": "station", "number": 2, "name": "Beta", "parent": "matrix-1"},
    ):
        r = await post(client, "/v1/admin/organizations", admin, body)
        assert r.status_code == 201, r.text


def select_station_ids() -> Any:
    from db.models.organizations import OrgUnit

    return select(OrgUnit.number, OrgUnit.id).where(OrgUnit.unit_type == "station")
