"""An administrator's control of a live project (issue 34): list/read/patch its tier, limits and
IP allow-list (audited, in force on the next request), approval with a tier, and the
Stripe-style roll of its api_secret (the old one works for X-API-Key and HMAC until expiry)."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.auth.signature import signature_header
from db.models import Project
from db.models.access import AuditLog, OAuthClient
from tests.factories import ProjectCreds, World
from tests.onboarding.conftest import Actors, application_body

# A read that needs project credentials: 401 when they are refused, 200/404 when accepted.
PROJECT_READ = "/v1/projects/oauth-client"


def key_headers(project_id: int, secret: str) -> dict[str, str]:
    return {"X-Project-ID": str(project_id), "X-API-Key": secret}


def hmac_headers(project_id: int, secret: str, method: str, path: str) -> dict[str, str]:
    stamp = str(int(time.time()))
    return {
        "X-Project-ID": str(project_id),
        "X-Timestamp": stamp,
        "X-Signature": signature_header(secret, method, path, stamp, None),
    }


async def _audits(
    sessions: async_sessionmaker[AsyncSession], project_id: int | None, operation: str
) -> list[AuditLog]:
    async with sessions() as s:
        rows = await s.scalars(
            select(AuditLog)
            .where(AuditLog.project_id == project_id, AuditLog.operation == operation)
            .order_by(AuditLog.created_at)
        )
        return list(rows)


async def test_list_filter_get(client: httpx.AsyncClient, actors: Actors, world: World) -> None:
    admin = await actors.admin()
    enterprise = await world.project(rate_limit_tier="enterprise", status="testing")
    r = await client.get(
        "/v1/admin/projects",
        params={"tier": "enterprise", "status": "testing", "per_page": 100},
        headers=admin,
    )
    assert r.status_code == 200, r.text
    body = r.json()
    ids = [item["id"] for item in body["data"]]
    assert str(enterprise.project_id) in ids
    assert all(
        item["attributes"]["rate_limit_tier"] == "enterprise"
        and item["attributes"]["status"] == "testing"
        for item in body["data"]
    )
    assert body["meta"]["total"] >= 1 and body["meta"]["per_page"] == 100
    one = await client.get(f"/api/open/admin/projects/{enterprise.project_id}", headers=admin)
    attrs = one.json()["data"]["attributes"]
    assert attrs["rate_limit_per_minute"] == 10_000 and attrs["api_key"] == enterprise.api_key
    assert "api_secret" not in attrs and "api_secret_hash" not in attrs
    assert (await client.get("/v1/admin/projects/987654321", headers=admin)).status_code == 404
    dev = await world.user()
    not_admin = {"Authorization": f"Bearer {await world.token(dev.uid, 'openid')}"}
    assert (await client.get("/v1/admin/projects", headers=not_admin)).status_code == 403
    assert (
        await client.get("/v1/admin/projects", params={"tier": "gold"}, headers=admin)
    ).status_code == 422


async def test_patch_audited_and_in_force_next_request(
    client: httpx.AsyncClient,
    actors: Actors,
    world: World,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    admin = await actors.admin()
    project = await world.project(rate_limit_tier="free")
    creds = key_headers(project.project_id, project.secret)
    assert (await client.get(PROJECT_READ, headers=creds)).status_code in (200, 404)

    limits = {"transfer": {"MCC": {"per_operation": "100", "per_day": "1000.5"}}}
    r = await client.patch(
        f"/v1/admin/projects/{project.project_id}",
        json={
            "rate_limit_tier": "enterprise",
            "limits": limits,
            "ip_allowlist": ["203.0.113.7", "198.51.100.0/24"],
            "reason": "contract signed",
        },
        headers=admin,
    )
    assert r.status_code == 200, r.text
    attrs = r.json()["data"]["attributes"]
    assert attrs["rate_limit_tier"] == "enterprise" and attrs["limits"] == limits
    assert attrs["ip_allowlist"] == ["203.0.113.7/32", "198.51.100.0/24"]

    # The next request from 127.0.0.1 is outside the allow-list.
    refused = await client.get(PROJECT_READ, headers=creds)
    assert refused.status_code == 403 and refused.json()["type"].endswith("/ip-not-allowed")

    (row,) = await _audits(session_maker, project.project_id, "admin.projects.update")
    assert row.actor.startswith("user:") and row.request_body["reason"] == "contract signed"
    assert row.request_body["before"]["rate_limit_tier"] == "free"
    assert row.response_body["after"]["rate_limit_tier"] == "enterprise"
    assert row.status == "success"

    # Only the named fields change; [] opens the allow-list again.
    r = await client.patch(
        f"/v1/admin/projects/{project.project_id}",
        json={"ip_allowlist": [], "reason": "moved to a cloud"},
        headers=admin,
    )
    assert r.json()["data"]["attributes"]["rate_limit_tier"] == "enterprise"
    assert r.json()["data"]["attributes"]["limits"] == limits
    assert (await client.get(PROJECT_READ, headers=creds)).status_code in (200, 404)


@pytest.mark.parametrize(
    "body",
    [
        {"rate_limit_tier": "gold"},
        {"ip_allowlist": ["not-an-ip"]},
        {"limits": {"teleport": {"MCC": {"per_day": "1"}}}},
        {"limits": {"transfer": {"XYZ": {"per_day": "1"}}}},
        {"limits": {"transfer": {"MCC": {"per_day": "-1"}}}},
        {"limits": {"transfer": {"MCC": {"per_week": "1"}}}},
        {"api_secret_hash": "x"},
    ],
)
async def test_patch_refuses_bad_values(
    client: httpx.AsyncClient,
    actors: Actors,
    world: World,
    session_maker: async_sessionmaker[AsyncSession],
    body: dict[str, Any],
) -> None:
    admin = await actors.admin()
    project = await world.project(rate_limit_tier="free")
    r = await client.patch(f"/v1/admin/projects/{project.project_id}", json=body, headers=admin)
    assert r.status_code == 422, r.text
    async with session_maker() as s:
        row = await s.get(Project, project.project_id)
        assert row is not None and row.rate_limit_tier == "free" and row.ip_allowlist == []
        assert row.limits == {}


async def test_approval_takes_a_tier(
    client: httpx.AsyncClient,
    actors: Actors,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    admin = await actors.admin()
    _, dev = await actors.developer()
    applied = await client.post("/v1/projects/apply", json=application_body(), headers=dev)
    app_id = applied.json()["data"]["id"]
    r = await client.post(
        f"/v1/admin/projects/applications/{app_id}/approve",
        json={"rate_limit_tier": "standard"},
        headers=admin,
    )
    assert r.status_code == 200, r.text
    project_id = r.json()["data"]["attributes"]["project_id"]
    got = await client.get(f"/v1/admin/projects/{project_id}", headers=admin)
    assert got.json()["data"]["attributes"]["rate_limit_tier"] == "standard"
    (row,) = await _audits(session_maker, project_id, "admin.applications.approve")
    assert row.request_body["rate_limit_tier"] == "standard"


async def _owned_project(world: World) -> tuple[ProjectCreds, dict[str, str]]:
    owner = await world.user()
    project = await world.project(owner_uid=owner.uid)
    token = await world.token(owner.uid, "openid")
    return project, {"Authorization": f"Bearer {token}"}


async def test_roll_keeps_the_old_secret_until_expiry(
    client: httpx.AsyncClient,
    world: World,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    project, owner = await _owned_project(world)
    pid, old = project.project_id, project.secret
    r = await client.post(
        f"/v1/projects/{pid}/api-secret/roll",
        json={"expire_previous_in_seconds": 3600},
        headers=owner,
    )
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    attrs = r.json()["data"]["attributes"]
    new = attrs["api_secret"]
    assert new != old and new.startswith("sk_") and attrs["api_key"] == project.api_key
    expires = datetime.fromisoformat(attrs["previous_expires_at"].replace("Z", "+00:00"))
    assert timedelta(minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=1)

    for secret in (old, new):  # both work, in both forms, during the overlap
        assert (await client.get(PROJECT_READ, headers=key_headers(pid, secret))).status_code in (
            200,
            404,
        )
        signed = hmac_headers(pid, secret, "GET", PROJECT_READ)
        assert (await client.get(PROJECT_READ, headers=signed)).status_code in (200, 404)

    # The overlap ends: the old secret answers 401 in both forms, the new one still works.
    async with session_maker() as s:
        await s.execute(
            update(Project)
            .where(Project.project_id == pid)
            .values(previous_secret_expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        await s.commit()
    refused = await client.get(PROJECT_READ, headers=key_headers(pid, old))
    assert refused.status_code == 401
    signed_old = hmac_headers(pid, old, "GET", PROJECT_READ)
    assert (await client.get(PROJECT_READ, headers=signed_old)).status_code == 401
    assert (await client.get(PROJECT_READ, headers=key_headers(pid, new))).status_code in (
        200,
        404,
    )

    (row,) = await _audits(session_maker, pid, "projects.api_secret.roll")
    assert row.request_body["by"] == "owner" and new not in str(row.response_body)


async def test_roll_now_and_who_may_roll(
    client: httpx.AsyncClient,
    actors: Actors,
    world: World,
) -> None:
    project, owner = await _owned_project(world)
    pid = project.project_id
    stranger = await world.user()
    other = {"Authorization": f"Bearer {await world.token(stranger.uid, 'openid')}"}
    path = f"/v1/projects/{pid}/api-secret/roll"
    forbidden = await client.post(path, json={}, headers=other)
    assert forbidden.status_code == 403
    assert (await client.post(path, json={})).status_code == 401
    for bad in (-1, 7 * 24 * 3600 + 1):
        r = await client.post(path, json={"expire_previous_in_seconds": bad}, headers=owner)
        assert r.status_code == 422
    assert (
        await client.post("/v1/projects/987654321/api-secret/roll", headers=owner)
    ).status_code == 404
    # Still the original secret after all the refusals.
    assert (
        await client.get(PROJECT_READ, headers=key_headers(pid, project.secret))
    ).status_code in (
        200,
        404,
    )

    # An administrator rolls with no overlap: the old secret stops at once.
    admin = await actors.admin()
    r = await client.post(path, json={"expire_previous_in_seconds": 0}, headers=admin)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["attributes"]["previous_expires_at"] is None
    assert (
        await client.get(PROJECT_READ, headers=key_headers(pid, project.secret))
    ).status_code == 401
    new = r.json()["data"]["attributes"]["api_secret"]
    assert (await client.get(PROJECT_READ, headers=key_headers(pid, new))).status_code in (200, 404)
    # No body at all: the default overlap of 24 h.
    r = await client.post(path, headers=owner)
    expires = datetime.fromisoformat(
        r.json()["data"]["attributes"]["previous_expires_at"].replace("Z", "+00:00")
    )
    assert timedelta(hours=23, minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=24)
    assert (await client.get(PROJECT_READ, headers=key_headers(pid, new))).status_code in (200, 404)


async def test_oauth_client_secret_roll(
    client: httpx.AsyncClient,
    app: FastAPI,
    world: World,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    """The project's public client gets a secret (confidential), then a roll keeps the first
    secret authenticating at the token endpoint's check until its overlap ends. Its owner rolls
    it, signed in to the gateway; the project's key reads it (issue 38)."""
    owner = await world.user()
    project = await world.project(owner_uid=owner.uid)
    creds = key_headers(project.project_id, project.secret)
    own = {"Authorization": f"Bearer {await world.token(owner.uid, 'openid')}"}
    path = f"/v1/projects/{project.project_id}/oauth-client/secret/roll"
    keyed = await client.post(path, json={"idempotency_key": uuid.uuid4().hex}, headers=creds)
    assert keyed.status_code == 401, keyed.text
    first = await client.post(path, json={"idempotency_key": uuid.uuid4().hex}, headers=own)
    assert first.status_code == 200, first.text
    attrs = first.json()["data"]["attributes"]
    client_id, secret1 = attrs["oauth_client_id"], attrs["client_secret"]
    assert attrs["client_type"] == "confidential" and attrs["previous_expires_at"] is None
    shown = await client.get("/v1/projects/oauth-client", headers=creds)
    assert shown.json()["data"]["attributes"]["client_type"] == "confidential"

    second = await client.post(
        path,
        json={"expire_previous_in_seconds": 600, "idempotency_key": uuid.uuid4().hex},
        headers=own,
    )
    secret2 = second.json()["data"]["attributes"]["client_secret"]
    assert secret2 != secret1

    async def accepts(secret: str) -> bool:
        found = await asyncio.to_thread(app.state.auth_server.query_client, client_id)
        return bool(found.check_client_secret(secret))

    assert await accepts(secret1) and await accepts(secret2)
    assert not await accepts("cs_wrong")
    async with session_maker() as s:
        await s.execute(
            update(OAuthClient)
            .where(OAuthClient.client_id == client_id)
            .values(previous_secret_expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        await s.commit()
    assert not await accepts(secret1) and await accepts(secret2)
    bad = await client.post(
        path,
        json={"expire_previous_in_seconds": -5, "idempotency_key": uuid.uuid4().hex},
        headers=own,
    )
    assert bad.status_code == 422
