"""Issue 31: a project's status, secret or allow-list change takes effect on the next request
on every API process. Each process caches project rows; a trigger on ``projects`` NOTIFYs at
commit, whoever wrote the row (here: plain SQL, as an operator's script would), and each
process evicts the one row. The cache is kept otherwise."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from api.auth.project import ProjectAuthenticator, project_key
from core.config import Settings
from db.models import Project
from tests.factories import ProjectCreds, World
from tests.security.conftest import slug

PROBE = "/v1/_probe/funds"
# Far below the old 5 s cache: a notification arrives within milliseconds of the commit.
WITHIN = 1.0


def _headers(creds: ProjectCreds) -> dict[str, str]:
    return {"X-Project-ID": str(creds.project_id), "X-API-Key": creds.secret}


@pytest.fixture
async def other_process(app: FastAPI, settings: Settings) -> AsyncIterator[ProjectAuthenticator]:
    """A second API process's authenticator: its own cache and its own LISTEN connection."""
    other = ProjectAuthenticator(settings, app.state.session_maker, app.state.redis)
    await other.start()
    try:
        yield other
    finally:
        await other.stop()


@pytest.fixture
def cached(app: FastAPI) -> Iterator[None]:
    """The app's authenticator with its real cache (some shared test apps turn it off)."""
    authenticator: ProjectAuthenticator = app.state.project_authenticator
    before = authenticator.cache_seconds
    authenticator.cache_seconds = 300.0
    yield
    authenticator.cache_seconds = before


async def _change(world: World, project_id: int, **values: Any) -> float:
    async with world.sessions() as s:
        await s.execute(update(Project).where(Project.project_id == project_id).values(**values))
        await s.commit()
    return time.monotonic()


async def _refused_within(client: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    deadline = time.monotonic() + WITHIN
    while True:
        r = await client.get(PROBE, headers=headers)
        if r.status_code != 200 or time.monotonic() > deadline:
            return r
        await asyncio.sleep(0.01)


@pytest.mark.usefixtures("cached")
async def test_a_suspension_bites_at_once_on_every_process(
    app: FastAPI, client: httpx.AsyncClient, world: World, other_process: ProjectAuthenticator
) -> None:
    creds = await world.project()
    key = project_key(creds.project_id)
    # Kept, not re-read, while nothing changes. The project's own creation notifies too, and
    # that notification may arrive just after the first read: read again until it has passed.
    for _ in range(int(2 * WITHIN / 0.05)):
        assert (await client.get(PROBE, headers=_headers(creds))).status_code == 200
        if key in app.state.project_authenticator.cache._entries:
            break
        await asyncio.sleep(0.05)
    assert key in app.state.project_authenticator.cache._entries
    for _ in range(int(2 * WITHIN / 0.05)):
        await other_process._project(creds.project_id)
        if key in other_process.cache._entries:
            break
        await asyncio.sleep(0.05)
    assert key in other_process.cache._entries

    changed = await _change(world, creds.project_id, status="discontinued")
    r = await _refused_within(client, _headers(creds))
    assert r.status_code == 403 and slug(r) == "project-suspended", r.text
    for _ in range(int(WITHIN / 0.01)):
        if key not in other_process.cache._entries:
            break
        await asyncio.sleep(0.01)
    assert time.monotonic() - changed < 2 * WITHIN
    assert key not in other_process.cache._entries, "the other process kept the old row"
    refreshed = await other_process._project(creds.project_id)
    assert refreshed is not None and refreshed.status == "discontinued"


@pytest.mark.usefixtures("cached")
async def test_a_secret_rotation_and_an_allow_list_bite_at_once(
    client: httpx.AsyncClient, world: World
) -> None:
    creds = await world.project()
    assert (await client.get(PROBE, headers=_headers(creds))).status_code == 200
    await _change(world, creds.project_id, api_secret_hash="0" * 64)
    r = await _refused_within(client, _headers(creds))
    assert r.status_code == 401 and slug(r) == "invalid-api-key", r.text

    other = await world.project()
    assert (await client.get(PROBE, headers=_headers(other))).status_code == 200
    await _change(world, other.project_id, ip_allowlist=["203.0.113.0/24"])
    r = await _refused_within(client, _headers(other))
    assert r.status_code == 403 and slug(r) == "ip-not-allowed", r.text
