"""Webhook tests: real app, worker, PostgreSQL, Redis, Temporal, and an HTTP receiver."""

from tests.webhooks.support import (  # noqa: F401  (fixtures)
    _fresh_rate_windows,
    app,
    client,
    fast_webhooks,
    receiver,
    worker,
    world,
)
