"""The demo territory: a system, a sector, two matrices and three stations with members and 30
days of confirmed mining history ending yesterday, so that some units are lit and some are not
(docs/organizations.md, "The demo"). Set-based: a few statements whatever the member count.

| unit | members | input a member a day (last 30 days) | state |
|---|---|---|---|
| station-1 (matrix-1) | 950 + alice | 25 USDC on 25 days, 5 on 5 | lit (25 days) |
| station-2 (matrix-1) | 950 | 25 USDC on the 18 latest days, 5 before | dark (18) |
| station-3 (matrix-2) | 850 + bob | 30 USDC, but under 900 members | dark (0) |
| matrix-1 | | (25 + 18) / 2 = 21.5 | lit |
| matrix-2 | | 0 | dark |
| sector-1, system-1 | | (25 + 18 + 0) / 3 = 14.33 | dark |

alice's bonus is 10 % + 20 % (``bonus_multiplier`` 1.3); bob's is 0.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.organizations import OrgUnit
from organizations import bulk, kpi, units
from organizations.units import NewUnit

# days back (1 = yesterday) on which station-1 does not qualify
STATION_1_MISSES = {4, 9, 14, 20, 28}
STATION_2_QUALIFYING = 18


async def seed_organizations(session: AsyncSession, alice_uid: str, bob_uid: str) -> bool:
    """Create the demo territory unless it exists (flush only); True when created."""
    exists = await session.scalar(
        select(OrgUnit.id).where(OrgUnit.unit_type == "system", OrgUnit.number == 1)
    )
    if exists is not None:
        return False
    now = datetime.now(UTC)
    joined = now - timedelta(days=40)
    ids: dict[str, int] = {}
    for kind, number, name, parent in (
        ("system", 1, "Demo System", None),
        ("sector", 1, "Demo Sector", "system-1"),
        ("matrix", 1, "Demo Matrix A", "sector-1"),
        ("matrix", 2, "Demo Matrix B", "sector-1"),
        ("station", 1, "Demo Station Alpha", "matrix-1"),
        ("station", 2, "Demo Station Beta", "matrix-1"),
        ("station", 3, "Demo Station Gamma", "matrix-2"),
    ):
        unit, _ = await units.create(session, NewUnit(kind, number, name, parent))
        ids[f"{kind}-{number}"] = unit.id
    await bulk.add_members(session, ids["station-1"], "demo-alpha-", 1, 950, joined)
    await bulk.add_members(session, ids["station-2"], "demo-beta-", 1, 950, joined)
    await bulk.add_members(session, ids["station-3"], "demo-gamma-", 1, 850, joined)
    await units.place(session, "station-1", alice_uid, joined)
    await units.place(session, "station-3", bob_uid, joined)
    today = now.date()
    for back in range(1, 31):
        day = today - timedelta(days=back)
        alpha = Decimal(5 if back in STATION_1_MISSES else 25)
        beta = Decimal(25 if back <= STATION_2_QUALIFYING else 5)
        await bulk.add_inputs(session, "demo-alpha-", 1, 950, day, alpha, tag="demo")
        await bulk.add_inputs(session, "demo-beta-", 1, 950, day, beta, tag="demo")
        await bulk.add_inputs(session, "demo-gamma-", 1, 850, day, Decimal(30), tag="demo")
    # The daily job over the window, as the schedule would have run it.
    done = await kpi.last_completed(session)
    for day in kpi.days_to_run(done, today - timedelta(days=1)):
        await kpi.run_day(session, day)
    return True
