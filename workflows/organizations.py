"""DailyKpiWorkflow: the tech tree's daily job (Temporal Schedule at 00:30 UTC, created by the
worker). Plans the days not yet computed, runs each in order as its own activity (one
transaction each: a crash or a killed worker resumes at the first undone day, never counting
one twice), then rebuilds the bonus cache."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.organizations import (
        KpiDayRequest,
        KpiPlanRequest,
        OrganizationActivities,
    )

DAILY_KPI_SCHEDULE_ID = "mccgw-daily-kpi"
DAILY_KPI_WORKFLOW_ID = "mccgw-daily-kpi"
# Minute 30 of hour 0, UTC.
DAILY_KPI_CRON = "30 0 * * *"

_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=1),
    maximum_attempts=10,
)


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
        plan = await workflow.execute_activity_method(
            OrganizationActivities.plan,
            KpiPlanRequest(through=data.through),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=_RETRY,
        )
        result = DailyKpiResult()
        for day in plan.days:
            done = await workflow.execute_activity_method(
                OrganizationActivities.run_day,
                KpiDayRequest(day=day),
                start_to_close_timeout=timedelta(minutes=10),
                retry_policy=_RETRY,
            )
            (result.skipped if done.skipped else result.days).append(day)
        refreshed = await workflow.execute_activity_method(
            OrganizationActivities.refresh_bonus_cache,
            start_to_close_timeout=timedelta(minutes=10),
            retry_policy=_RETRY,
        )
        result.members_cached = refreshed.members
        return result
