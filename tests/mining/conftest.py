"""Mining tests: real app, a worker per test, chain node, PostgreSQL, Redis, Temporal and a
receiver (tests/stack.py, tests/webhooks/support.py)."""

from tests.stack import Stack
from tests.webhooks.support import FAST_WEBHOOKS, receiver

__all__ = ["receiver"]

STACK = Stack("mining", worker="per test", changes=FAST_WEBHOOKS)
app_settings, queue, deps, worker, app = STACK.fixtures()
