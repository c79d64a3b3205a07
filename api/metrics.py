"""Prometheus metrics served at /metrics."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

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
