"""Webhook tests: real app, worker, PostgreSQL, Redis, Temporal, and an HTTP receiver."""

from tests.webhooks.support import (  # noqa: F401  (fixtures)
    api_webhooks,
    app,
    fast_webhooks,
    receiver,
    worker,
)
