"""The console's front page (issue 34): the last hour at a glance, as small server-rendered
charts, each linking to the list it counts; and those lists (the audit trail of operations,
webhook deliveries, deposits). Reads only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from api.console import pages
from api.console.charts import Bar, Segment, bars, legend
from api.deps import DecimalsDep
from api.metrics import HTTP_LATENCY
from chain.decimals import TokenDecimals
from db.models.access import AUDIT_STATUSES, AuditLog
from db.models.engine import ReconciliationDrift
from db.models.tokens import DEPOSIT_OUTCOMES, Deposit
from db.models.webhooks import DELIVERY_STATUSES, WebhookDelivery

router = pages.console_router()

WINDOW = timedelta(hours=1)
_AUDIT_TONES = {"success": "ok", "pending": "warn", "failed": "bad"}
_DEPOSIT_TONES = {"credited": "ok", "ignored_failed": "muted", "ignored_wrong_mint": "warn"}


def _link(path: str, **params: Any) -> str:
    kept = {k: v for k, v in params.items() if v not in (None, "")}
    return f"{path}?{urlencode(kept)}" if kept else path


async def operations_chart(session: AsyncSession, since: datetime) -> list[Bar]:
    """Transactional calls of the last hour by operation and the state their audit row is in."""
    rows = await session.execute(
        select(AuditLog.operation, AuditLog.status, func.count())
        .where(AuditLog.created_at >= since)
        .group_by(AuditLog.operation, AuditLog.status)
    )
    by_operation: dict[str, dict[str, int]] = {}
    for operation, status, count in rows.all():
        by_operation.setdefault(operation, {})[status] = count
    ordered = sorted(by_operation.items(), key=lambda item: -sum(item[1].values()))
    return [
        Bar(
            operation,
            _link("/console/audit", operation=operation, hours=1),
            [Segment(s, counts.get(s, 0), _AUDIT_TONES[s]) for s in AUDIT_STATUSES],
        )
        for operation, counts in ordered[:12]
    ]


def latency_chart() -> tuple[list[Bar], dict[str, float | None]]:
    """Write requests (POST/PUT/PATCH/DELETE) answered by this API process, by how long the
    answer took (the request-latency histogram /metrics serves), with p50/p95/p99."""
    cumulative: dict[float, float] = {}
    for metric in HTTP_LATENCY.collect():
        for sample in metric.samples:
            if not sample.name.endswith("_bucket"):
                continue
            if sample.labels.get("method") not in ("POST", "PUT", "PATCH", "DELETE"):
                continue
            bound = float(sample.labels["le"])
            cumulative[bound] = cumulative.get(bound, 0.0) + sample.value
    bounds = sorted(cumulative)
    total = cumulative.get(float("inf"), 0.0)
    rows: list[Bar] = []
    previous = 0.0
    for bound in bounds:
        count = cumulative[bound] - previous
        previous = cumulative[bound]
        label = "slower" if bound == float("inf") else f"≤ {bound * 1000:g} ms"
        rows.append(Bar(label, "/metrics", [Segment("requests", count, "info")]))
    quantiles: dict[str, float | None] = {}
    for name, q in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99)):
        quantiles[name] = next(
            (b * 1000 for b in bounds if total and cumulative[b] >= q * total), None
        )
    return (rows if total else []), quantiles


async def webhook_chart(session: AsyncSession, since: datetime) -> list[Bar]:
    """The delivery backlog now (due, waiting for a retry) and the last hour's outcomes."""
    now = datetime.now(UTC)
    due, retrying = (
        await session.execute(
            select(
                func.count().filter(WebhookDelivery.next_attempt_at <= now),
                func.count().filter(WebhookDelivery.next_attempt_at > now),
            ).where(WebhookDelivery.status == "pending")
        )
    ).one()
    done = dict(
        (
            await session.execute(
                select(WebhookDelivery.status, func.count())
                .where(
                    WebhookDelivery.status != "pending",
                    WebhookDelivery.completed_at >= since,
                )
                .group_by(WebhookDelivery.status)
            )
        ).all()
    )
    return [
        Bar("pending, due now", _link("/console/deliveries", status="pending"),
            [Segment("due", due, "warn")]),
        Bar("pending, awaiting retry", _link("/console/deliveries", status="pending"),
            [Segment("retrying", retrying, "muted")]),
        Bar("failed (last hour)", _link("/console/deliveries", status="failed"),
            [Segment("failed", done.get("failed", 0), "bad")]),
        Bar("succeeded (last hour)", _link("/console/deliveries", status="succeeded"),
            [Segment("succeeded", done.get("succeeded", 0), "ok")]),
    ]  # fmt: skip


async def drift_chart(
    session: AsyncSession, decimals: TokenDecimals
) -> tuple[list[Bar], str | None]:
    """The newest reconciliation run's drifts: accounts and total |drift| per currency."""
    run_id = await session.scalar(
        select(ReconciliationDrift.run_id)
        .order_by(ReconciliationDrift.created_at.desc(), ReconciliationDrift.id.desc())
        .limit(1)
    )
    if run_id is None:
        return [], None
    rows = await session.execute(
        select(
            ReconciliationDrift.currency,
            func.count(),
            func.sum(func.abs(ReconciliationDrift.drift)),
        )
        .where(ReconciliationDrift.run_id == run_id)
        .group_by(ReconciliationDrift.currency)
        .order_by(ReconciliationDrift.currency)
    )
    return [
        Bar(
            f"{currency}: {count} account{'s' if count != 1 else ''}",
            _link("/console/drifts", run_id=run_id, currency=currency),
            [Segment("|drift|", float(total or 0) / 10 ** decimals.of(currency), "bad")],
            note=f"{decimals.format(int(total or 0), currency)} {currency}",
        )
        for currency, count, total in rows.all()
    ], run_id


async def deposit_chart(
    session: AsyncSession, since: datetime, decimals: TokenDecimals
) -> list[Bar]:
    """Deposits seen in the last hour, per currency, by outcome (amounts in whole tokens)."""
    rows = await session.execute(
        select(Deposit.currency, Deposit.outcome, func.count(), func.sum(Deposit.amount))
        .where(Deposit.created_at >= since)
        .group_by(Deposit.currency, Deposit.outcome)
    )
    by_currency: dict[str, dict[str, tuple[int, int]]] = {}
    for currency, outcome, count, amount in rows.all():
        by_currency.setdefault(currency, {})[outcome] = (count, int(amount or 0))
    out = []
    for currency, outcomes in sorted(by_currency.items()):
        credited = outcomes.get("credited", (0, 0))
        out.append(
            Bar(
                f"{currency}: {sum(c for c, _ in outcomes.values())} deposits",
                _link("/console/deposits", currency=currency, hours=1),
                [Segment(o, outcomes.get(o, (0, 0))[0], _DEPOSIT_TONES.get(o, "bad"))
                 for o in DEPOSIT_OUTCOMES],
                note=f"{decimals.format(credited[1], currency)} {currency} credited",
            )
        )  # fmt: skip
    return out


@router.get("/overview")
async def overview_page(request: Request, decimals: DecimalsDep) -> Response:
    """The last hour: operations by kind and state, accept latency, webhook backlog, drift and
    deposits."""
    since = datetime.now(UTC) - WINDOW
    async with pages.sessions(request) as session:
        await pages.admin(request, session)
        operations = await operations_chart(session, since)
        webhooks = await webhook_chart(session, since)
        drifts, run_id = await drift_chart(session, decimals)
        deposits = await deposit_chart(session, since, decimals)
    latency, quantiles = latency_chart()
    charts = {
        "operations": bars(operations, title="Operations of the last hour"),
        "operations_legend": legend(("success", "ok"), ("pending", "warn"), ("failed", "bad")),
        "latency": bars(latency, title="Write latency"),
        "webhooks": bars(webhooks, title="Webhook backlog"),
        "drifts": bars(drifts, title="Reconciliation drift"),
        "deposits": bars(deposits, title="Deposits of the last hour"),
        "deposits_legend": legend(
            ("credited", "ok"), ("ignored (failed tx)", "muted"), ("wrong mint", "warn"),
            ("unexplained outflow", "bad"),
        ),
    }  # fmt: skip
    return pages.render(
        request, "overview.html", charts=charts, quantiles=quantiles, run_id=run_id,
        since=since, counts={"operations": sum(b.total for b in operations)},
    )  # fmt: skip


def _since(hours: int) -> datetime:
    return datetime.now(UTC) - timedelta(hours=max(1, min(hours, 24 * 30)))


def audit_rows(operation: str, status: str, project: str, hours: int) -> Select[Any]:
    statement = select(AuditLog).where(AuditLog.created_at >= _since(hours))
    if operation:
        statement = statement.where(AuditLog.operation == operation)
    if status in AUDIT_STATUSES:
        statement = statement.where(AuditLog.status == status)
    if project.isascii() and project.isdecimal():
        statement = statement.where(AuditLog.project_id == int(project))
    return statement


@router.get("/audit")
async def audit_page(
    request: Request,
    operation: str = "",
    status: str = "",
    project: str = "",
    hours: int = 24,
    page: int = 1,
) -> Response:
    """The audit trail: every transactional call and administrator action, newest first."""
    statement = audit_rows(operation.strip(), status, project.strip(), hours)
    return await pages.list_page(
        request, "audit.html", statement, [AuditLog.created_at.desc()], page,
        operation=operation, status=status, project=project, hours=hours,
        statuses=AUDIT_STATUSES,
    )  # fmt: skip


@router.get("/deliveries")
async def deliveries_page(request: Request, status: str = "pending", page: int = 1) -> Response:
    """Webhook deliveries by status: the backlog (pending), failed, succeeded."""
    statement = select(WebhookDelivery)
    if status in DELIVERY_STATUSES:
        statement = statement.where(WebhookDelivery.status == status)
    order = [WebhookDelivery.created_at.desc()]
    return await pages.list_page(
        request, "deliveries.html", statement, order, page,
        status=status, statuses=DELIVERY_STATUSES,
    )  # fmt: skip


@router.get("/deposits")
async def deposits_page(
    request: Request,
    decimals: DecimalsDep,
    currency: str = "",
    outcome: str = "",
    hours: int = 24,
    page: int = 1,
) -> Response:
    """Deposits seen by the watcher, newest first, by currency and outcome."""
    statement = select(Deposit).where(Deposit.created_at >= _since(hours))
    if currency in ("MCC", "MCD"):
        statement = statement.where(Deposit.currency == currency)
    if outcome in DEPOSIT_OUTCOMES:
        statement = statement.where(Deposit.outcome == outcome)
    return await pages.list_page(
        request, "deposits.html", statement, [Deposit.created_at.desc(), Deposit.id.desc()], page,
        currency=currency, outcome=outcome, hours=hours, outcomes=DEPOSIT_OUTCOMES,
        units=lambda v, currency: decimals.format(v, currency),
    )  # fmt: skip
