"""Mining tests: real app, worker, chain node, PostgreSQL, Redis, Temporal and a receiver."""

from tests.webhooks.support import (  # noqa: F401  (fixtures)
    _fresh_rate_windows,
    app,
    client,
    fast_webhooks,
    receiver,
    worker,
    world,
)
