"""Activities of the daily KPI job: plan the days, run one day (one transaction), refresh
the bonus cache. Thin: each calls the organizations service and commits once."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from temporalio import activity
from temporalio.exceptions import ApplicationError

from organizations import bonus, kpi
from organizations.errors import OrgRejected

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class KpiPlanRequest:
    # ISO date of the last day to compute; None = yesterday (UTC) at the time of the call.
    through: str | None = None


@dataclass
class KpiPlan:
    days: list[str]


@dataclass
class KpiDayRequest:
    day: str


@dataclass
class KpiDayResult:
    day: str
    skipped: bool
    kpi_rows: int
    units_changed: int


@dataclass
class BonusRefreshRequest:
    note: str = ""


@dataclass
class BonusRefreshResult:
    members: int
    stations: int


class OrganizationActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self._sessions = deps.sessions
        self._redis = deps.redis

    @activity.defn(name="organizations.kpi_plan")
    async def kpi_plan(self, request: KpiPlanRequest) -> KpiPlan:
        """The days still to compute, oldest first (catch-up after downtime)."""
        through = (
            date.fromisoformat(request.through)
            if request.through
            else datetime.now(UTC).date() - timedelta(days=1)
        )
        async with self._sessions() as session:
            done = await kpi.last_completed(session)
        return KpiPlan(days=[d.isoformat() for d in kpi.days_to_run(done, through)])

    @activity.defn(name="organizations.kpi_day")
    async def kpi_day(self, request: KpiDayRequest) -> KpiDayResult:
        """One day's KPI rows, unit states and marker, committed together (or not at all)."""
        async with self._sessions() as session:
            try:
                outcome = await kpi.run_day(session, date.fromisoformat(request.day))
            except OrgRejected as exc:
                raise ApplicationError(exc.detail, type=exc.slug, non_retryable=True) from exc
            await session.commit()
        return KpiDayResult(
            day=request.day,
            skipped=outcome.skipped,
            kpi_rows=outcome.kpi_rows,
            units_changed=outcome.units_changed,
        )

    @activity.defn(name="organizations.refresh_bonus_cache")
    async def refresh_bonus_cache(self, request: BonusRefreshRequest) -> BonusRefreshResult:
        """Rebuild every member's bonus in Redis from the committed unit states."""
        async with self._sessions() as session:
            outcome = await bonus.refresh_all(session, self._redis)
        return BonusRefreshResult(members=outcome.members, stations=outcome.stations)
