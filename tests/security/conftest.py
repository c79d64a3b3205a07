"""Security tests: the access package's real app (lifespan included) on real PostgreSQL and
Redis; ``client`` and ``world`` come from tests/conftest.py."""

from __future__ import annotations

import httpx

from tests.access.conftest import STACK

app_settings, queue, deps, worker, app = STACK.fixtures()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def slug(r: httpx.Response) -> str:
    return str(r.json()["type"].rsplit("/", 1)[-1])
