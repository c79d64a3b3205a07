"""Security tests: the access package's real app (lifespan included) on real PostgreSQL, Redis
and the session's chain node (money routes read the mints' decimals from it: without a chain
they would answer 503 unless an earlier package's worker had kept them); ``client`` and
``world`` come from tests/conftest.py."""

from __future__ import annotations

import httpx

from tests.access.conftest import build_app
from tests.stack import Stack

STACK = Stack("security", on="worker_settings", temporal=False, build=build_app)
app_settings, queue, deps, worker, app = STACK.fixtures()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def slug(r: httpx.Response) -> str:
    return str(r.json()["type"].rsplit("/", 1)[-1])
