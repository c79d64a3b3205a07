"""Webhook tests: real app, a worker per test, PostgreSQL, Redis, Temporal, and an HTTP
receiver (tests/stack.py, tests/webhooks/support.py)."""

from tests.stack import Stack
from tests.webhooks.support import FAST_WEBHOOKS, api_webhooks, receiver

__all__ = ["api_webhooks", "receiver"]

STACK = Stack("webhooks", worker="per test", changes=FAST_WEBHOOKS)
app_settings, queue, deps, worker, app = STACK.fixtures()
