"""Security tests: the real app (lifespan included) on real PostgreSQL and Redis, with the
access package's fixtures (app, client, world, fresh rate windows)."""

from __future__ import annotations

import httpx

from tests.access.conftest import _fresh_rate_windows, app, client, world

__all__ = ["_fresh_rate_windows", "app", "client", "world"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def slug(r: httpx.Response) -> str:
    return str(r.json()["type"].rsplit("/", 1)[-1])
