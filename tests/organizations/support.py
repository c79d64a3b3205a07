"""Helpers of the organization tests: units and KPI history written straight to PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.access import OAuthClient
from organizations import units
from organizations.units import NewUnit
from tests.factories import World


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


async def token(world: World, uid: str, scope: str) -> str:
    """An access token with exactly ``scope`` (through a first-party client allowed those
    scopes: only such a client's tokens carry an administrator's power)."""
    project = await world.project()
    client_id = f"cl_{uuid.uuid4().hex[:12]}"
    async with world.sessions() as s:
        s.add(
            OAuthClient(
                client_id=client_id,
                project_id=project.project_id,
                name="Organization tests",
                client_secret_hash=None,
                redirect_uris=["http://localhost:3000/callback"],
                allowed_scopes=scope.split(),
                grant_types=["authorization_code"],
                access_token_format="jwt",
                first_party=True,
            )
        )
        await s.commit()
    return await world.token(uid, scope, client_id=client_id)
