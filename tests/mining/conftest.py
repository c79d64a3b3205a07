"""Mining tests: real app, worker, chain node, PostgreSQL, Redis, Temporal and a receiver."""

from tests.webhooks.support import app, fast_webhooks, receiver, worker  # noqa: F401  (fixtures)
