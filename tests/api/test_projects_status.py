"""The public project status read, end to end through a real database."""

from __future__ import annotations

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import Project


async def test_status_of_a_project(
    client: httpx.AsyncClient, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    async with session_maker() as session:
        project = Project(
            name="Status probe",
            allowed_scopes=[],
            rate_limit_tier="free",
            ip_allowlist=[],
            limits={},
            status="maintenance",
        )
        session.add(project)
        await session.commit()

    resp = await client.get(f"/v1/projects/{project.project_id}/status")
    assert resp.status_code == 200
    body = resp.json()
    assert body["data"]["type"] == "project_status"
    assert body["data"]["id"] == str(project.project_id)
    assert body["data"]["attributes"]["status"] == "maintenance"
    assert body["meta"]["api_version"] == "v1"
    assert body["meta"]["request_id"] == resp.headers["x-request-id"]


async def test_unknown_project_is_404(client: httpx.AsyncClient) -> None:
    resp = await client.get("/v1/projects/999999999/status")
    assert resp.status_code == 404
    assert resp.json()["type"].endswith("/errors/not-found")


async def test_status_answer_carries_its_change(
    client: httpx.AsyncClient, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    """reason, changed_by and created_at of the change that set the status, at the top level
    (the spec's shape), from the admin's change and on the public read."""
    async with session_maker() as session:
        project = Project(
            name="Status change probe", allowed_scopes=[], rate_limit_tier="free",
            ip_allowlist=[], limits={}, status="active",
        )  # fmt: skip
        session.add(project)
        await session.commit()
    fresh = (await client.get(f"/v1/projects/{project.project_id}/status")).json()
    attrs = fresh["data"]["attributes"]
    assert attrs["reason"] is None and attrs["changed_by"] is None
    assert attrs["created_at"].endswith("Z")
