"""Prometheus metrics served at /metrics (all of them defined in core.metrics)."""

from __future__ import annotations

from core.metrics import HTTP_LATENCY, HTTP_REQUESTS, WORKFLOW_STARTS

__all__ = ["HTTP_LATENCY", "HTTP_REQUESTS", "WORKFLOW_STARTS"]
