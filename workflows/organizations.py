"""DailyKpiWorkflow: the tech tree's daily job (Temporal Schedule at 00:30 UTC, created by the
worker). Plans the days not yet computed, runs each in order as its own activity (one
transaction each: a crash or a killed worker resumes at the first undone day, never counting
one twice), then rebuilds the bonus cache."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.organizations import (
        BonusRefreshRequest,
        KpiDayRequest,
        KpiPlanRequest,
        OrganizationActivities,
    )
    from workflows.steps import Step, backoff

DAILY_KPI_SCHEDULE_ID = "mccgw-daily-kpi"
# Minute 30 of hour 0, UTC.
DAILY_KPI_CRON = "30 0 * * *"

_RETRY = backoff(timedelta(seconds=1), timedelta(minutes=1), 10)
_PLAN = Step(timedelta(seconds=30), _RETRY)
_DAY = Step(timedelta(minutes=10), _RETRY)


@dataclass
class DailyKpiInput:
    # ISO date of the last day to compute; None = yesterday when the plan runs.
    through: str | None = None


@dataclass
class DailyKpiResult:
    days: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    members_cached: int = 0


@workflow.defn
class DailyKpiWorkflow:
    @workflow.run
    async def run(self, data: DailyKpiInput) -> DailyKpiResult:
        plan = await _PLAN.run(
            OrganizationActivities.kpi_plan, KpiPlanRequest(through=data.through)
        )
        result = DailyKpiResult()
        for day in plan.days:
            done = await _DAY.run(OrganizationActivities.kpi_day, KpiDayRequest(day=day))
            (result.skipped if done.skipped else result.days).append(day)
        refreshed = await _DAY.run(
            OrganizationActivities.refresh_bonus_cache, BonusRefreshRequest()
        )
        result.members_cached = refreshed.members
        return result
