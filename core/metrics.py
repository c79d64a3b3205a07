"""Every Prometheus metric of the gateway, in one place: the API's and the workers'.

The Grafana dashboard compose provisions (deploy/grafana/dashboards/mccgw.json) queries these;
tests/deploy/test_metrics.py checks that each metric it queries is exported by a running API and
worker. The API serves them at ``/metrics``; a worker at ``WORKER_METRICS_PORT`` (0: none).

Processes that share one port (uvicorn's ``--workers``) write their values to files in
``PROMETHEUS_MULTIPROC_DIR`` and any of them serves the sum; ``mccgw api`` empties that
directory at start.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from temporalio import workflow
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

# -- the API ------------------------------------------------------------------------------
HTTP_REQUESTS = Counter(
    "mccgw_http_requests_total", "HTTP requests served", ["method", "route", "status"]
)
HTTP_LATENCY = Histogram(
    "mccgw_http_request_duration_seconds",
    "HTTP request latency",
    ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
WORKFLOW_STARTS = Counter(
    "mccgw_workflow_starts_total", "Workflows started by the API", ["workflow"]
)

# -- the workers --------------------------------------------------------------------------
WORKFLOWS_CLOSED = Counter(
    "mccgw_workflows_closed_total",
    "Workflow runs that ended on this worker, by type and outcome (completed or failed)",
    ["workflow", "outcome"],
)
CHAIN_WRITES = Counter(
    "mccgw_chain_writes_total",
    "Chain writes that reached a final state, by kind and outcome (succeeded or failed)",
    ["kind", "outcome"],
)
CHAIN_FINALITY = Histogram(
    "mccgw_chain_finality_seconds",
    "From a chain write's record to its final state",
    ["kind"],
    buckets=(0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300),
)
CHAIN_WRITE_FEES = Histogram(
    "mccgw_chain_write_fee_lamports",
    "What a settled chain write paid: 5 000 lamports a signature plus its priority fee",
    ["kind"],
    buckets=(5_000, 5_500, 6_000, 7_500, 10_000, 15_000, 25_000, 50_000, 100_000, 250_000),
)
WEBHOOK_ATTEMPTS = Counter(
    "mccgw_webhook_attempts_total",
    "Webhook delivery attempts, by outcome (succeeded, retry, failed: the schedule exhausted)",
    ["outcome"],
)
WEBHOOK_BACKLOG = Gauge(
    "mccgw_webhook_backlog",
    "Webhook deliveries pending (as the last delivery round of this worker found them)",
    multiprocess_mode="max",
)
DEPOSITS_CREDITED = Counter(
    "mccgw_deposits_credited_total", "Deposits from outside wallets credited", ["currency"]
)

# -- the chain's one door (chain/rpc.py), in every process: per provider (its host, never the
# URL's path or query, where a hosted plan keeps its key) and JSON-RPC method.
CHAIN_RPC_REQUESTS = Counter(
    "mccgw_chain_rpc_requests_total",
    "HTTP requests to an RPC provider (a batch is one), retries included",
    ["provider", "method"],
)
CHAIN_RPC_ERRORS = Counter(
    "mccgw_chain_rpc_errors_total",
    "Failed requests to an RPC provider, by kind (rate_limited, unreachable, timeout, http, "
    "node_behind, garbage)",
    ["provider", "method", "kind"],
)
CHAIN_RPC_LATENCY = Histogram(
    "mccgw_chain_rpc_latency_seconds",
    "One HTTP request to an RPC provider, sent to answered",
    ["provider", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
CHAIN_RPC_BUDGET_WAIT = Histogram(
    "mccgw_chain_rpc_budget_wait_seconds",
    "Time a request waited for its turn in the provider's request budget",
    ["provider"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)


def registry() -> CollectorRegistry:
    """The registry to expose: the files of every process sharing a port, or this process's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        collected = CollectorRegistry()
        multiprocess.MultiProcessCollector(collected)
        return collected
    return REGISTRY


def exposition() -> bytes:
    return generate_latest(registry())


def serve(port: int) -> None:
    """A worker's /metrics on ``port`` (a thread of its own)."""
    start_http_server(port, registry=registry())


class _Closed(WorkflowInboundInterceptor):
    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        name = workflow.info().workflow_type
        try:
            result = await super().execute_workflow(input)
        except BaseException as exc:
            # Only a failure ends the run (any other exception fails the task, retried).
            from temporalio.exceptions import FailureError

            if isinstance(exc, FailureError) and not workflow.unsafe.is_replaying():
                WORKFLOWS_CLOSED.labels(name, "failed").inc()
            raise
        if not workflow.unsafe.is_replaying():
            WORKFLOWS_CLOSED.labels(name, "completed").inc()
        return result


class WorkflowMetrics(Interceptor):
    """Counts each workflow run this worker ends (not its replays)."""

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        return _Closed
