"""Project status machine (every transition and refusal), what each status allows on the
attribute routes, delete and batch reads, and the visibility matrix."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import Project
from db.models.events import EVENT_TYPES
from onboarding.status import TRANSITIONS
from tests.factories import ProjectCreds, World
from tests.onboarding.conftest import Actors, bearer

STATUSES = ["active", "maintenance", "testing", "discontinued", "deleted"]


def creds(project: ProjectCreds) -> dict[str, str]:
    return {"X-Project-ID": str(project.project_id), "X-API-Key": project.secret}


async def _set_status(
    sessions: async_sessionmaker[AsyncSession], project_id: int, status: str
) -> None:
    async with sessions() as s:
        await s.execute(
            update(Project).where(Project.project_id == project_id).values(status=status)
        )
        await s.commit()


async def test_every_transition_and_refusal(
    client: httpx.AsyncClient,
    actors: Actors,
    world: World,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    admin = await actors.admin()
    allowed = 0
    for current in STATUSES:
        for target in STATUSES:
            project = await world.project(status=current)
            resp = await client.put(
                f"/v1/admin/projects/{project.project_id}/status",
                json={"status": target, "reason": f"{current}->{target}"},
                headers=admin,
            )
            if target in TRANSITIONS[current]:
                allowed += 1
                assert resp.status_code == 200, (current, target, resp.text)
                change = resp.json()["data"]["attributes"]["change"]
                assert (change["from_status"], change["status"]) == (current, target)
                assert change["reason"] == f"{current}->{target}" and change["changed_by"]
                top = resp.json()["data"]["attributes"]  # the spec's fields at the top level
                assert (top["reason"], top["changed_by"], top["created_at"]) == (
                    change["reason"], change["changed_by"], change["created_at"],
                )  # fmt: skip
                public = await client.get(f"/v1/projects/{project.project_id}/status")
                attrs = public.json()["data"]["attributes"]
                assert attrs["status"] == target
                assert (attrs["reason"], attrs["changed_by"]) == (
                    change["reason"],
                    top["changed_by"],
                )
                assert attrs["history"][0]["status"] == target
                assert attrs["history"][0]["from_status"] == current
            else:
                assert resp.status_code == 409, (current, target, resp.text)
                assert resp.json()["type"].endswith("/errors/invalid-state")
    assert allowed == 6  # exactly the spec's six transitions

    project = await world.project()
    bad = await client.put(
        f"/api/open/admin/projects/{project.project_id}/status",
        json={"status": "paused"},
        headers=admin,
    )
    assert bad.status_code == 422
    missing = await client.put(
        "/v1/admin/projects/987654321/status", json={"status": "active"}, headers=admin
    )
    assert missing.status_code == 404
    for path in (
        "/v1/admin/projects/99999999999999999999/status",
        "/v1/admin/mcd/whitelist/99999999999999999999/status",
    ):
        huge = await client.put(path, json={"status": "active"}, headers=admin)
        assert huge.status_code == 422, huge.text
    assert (await client.get("/v1/projects/99999999999999999999/status")).status_code == 422
    _, dev = await actors.developer()
    # (With credentials: a route that takes callers checks them before its parameters.)
    assert (
        await client.get("/v1/users/u_x/projects/99999999999999999999/attributes", headers=dev)
    ).status_code == 422
    forbidden = await client.put(
        f"/v1/admin/projects/{project.project_id}/status",
        json={"status": "maintenance"},
        headers=dev,
    )
    assert forbidden.status_code == 403


async def test_register_project(client: httpx.AsyncClient, actors: Actors) -> None:
    admin = await actors.admin()
    explicit = str(900_000 + uuid.uuid4().int % 90_000)
    body: dict[str, Any] = {
        "project_id": explicit,
        "name": "Partner Arena",
        "description": "Tournaments",
        "webhook_url": "https://arena.example/hooks",
        "allowed_scopes": ["mining:read", "mining:write"],
        "rate_limit_tier": "standard",
        "idempotency_key": uuid.uuid4().hex,
    }
    resp = await client.post("/v1/projects/register", json=body, headers=admin)
    assert resp.status_code == 201, resp.text
    attrs = resp.json()["data"]["attributes"]
    assert attrs["project_id"] == explicit and attrs["api_secret"].startswith("sk_")
    assert attrs["status"] == "active" and attrs["rate_limit_tier"] == "standard"
    # The webhook_url became the project's endpoint, for every event, its secret shown once.
    assert attrs["webhook_endpoint_id"].startswith("whk_")
    assert attrs["webhook_secret"].startswith("whsec_")
    project_creds = {"X-Project-ID": explicit, "X-API-Key": attrs["api_secret"]}
    hooks = await client.get("/v1/webhooks", headers=project_creds)
    assert hooks.status_code == 200, hooks.text
    [endpoint] = hooks.json()["data"]
    assert endpoint["id"] == attrs["webhook_endpoint_id"]
    assert endpoint["attributes"]["url"] == "https://arena.example/hooks"
    assert set(endpoint["attributes"]["events"]) == set(EVENT_TYPES)
    assert "secret" not in endpoint["attributes"]
    # Idempotent on its key: the same call again replays the same answer, nothing made twice.
    again = await client.post("/v1/projects/register", json=body, headers=admin)
    assert again.status_code == 201 and again.headers.get("idempotent-replayed") == "true"
    assert again.json()["data"]["attributes"] == attrs
    call = await client.post(
        "/v1/users/batch/attributes",
        json={"uids": ["x"]},
        headers={"X-Project-ID": explicit, "X-API-Key": attrs["api_secret"]},
    )
    assert call.status_code == 200, call.text
    dup = await client.post(
        "/v1/projects/register", json=body | {"idempotency_key": "other"}, headers=admin
    )
    assert dup.status_code == 409 and dup.json()["type"].endswith("/errors/project-exists")
    no_key = {"name": "Auto id project"}
    refused = await client.post("/v1/projects/register", json=no_key, headers=admin)
    assert refused.status_code == 422  # a registration needs its key
    auto = await client.post(
        "/v1/projects/register", json=no_key | {"idempotency_key": uuid.uuid4().hex}, headers=admin
    )
    assert auto.status_code == 201
    assert auto.json()["data"]["attributes"].get("webhook_secret") is None
    assert int(auto.json()["data"]["attributes"]["project_id"]) > int(explicit)
    for bad in (
        {"name": "ok name", "allowed_scopes": ["root"]},
        {"name": "ok name", "rate_limit_tier": "gold"},
        {"name": "x"},
        {"name": "ok name", "project_id": "abc"},
        {"name": "ok name", "webhook_url": "https://user:pw@arena.example/h"},
    ):
        bad["idempotency_key"] = uuid.uuid4().hex
        refused = await client.post("/v1/projects/register", json=bad, headers=admin)
        assert refused.status_code == 422, bad
    _, dev = await actors.developer()
    assert (
        await client.post(
            "/v1/projects/register", json={"name": "Nope nope", "idempotency_key": "k"}, headers=dev
        )
    ).status_code == 403


def _attr(key: str, value: Any = 1, visibility: str = "private") -> dict[str, Any]:
    return {
        "attribute_key": key,
        "attribute_value": value,
        "visibility": visibility,
        "idempotency_key": f"{key}-{uuid.uuid4().hex}",
    }


async def test_status_gates_attribute_routes(
    client: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    user = await world.user()
    project = await world.project()
    await world.consent(user.uid, project.project_id)
    url = f"/v1/users/{user.uid}/attributes"
    write = await client.post(url, json=_attr("level", 3, "public"), headers=creds(project))
    assert write.status_code == 200, write.text

    await _set_status(session_maker, project.project_id, "testing")
    flagged = await client.post(url, json=_attr("level", 4, "public"), headers=creds(project))
    assert flagged.status_code == 200
    assert flagged.json()["meta"]["project_status"] == "testing"

    await _set_status(session_maker, project.project_id, "maintenance")
    refused = await client.post(url, json=_attr("level", 5), headers=creds(project))
    assert refused.status_code == 409
    assert refused.json()["type"].endswith("/errors/invalid-state")
    deleted = await client.request(
        "DELETE",
        url,
        json={"attribute_keys": ["level"], "idempotency_key": uuid.uuid4().hex},
        headers=creds(project),
    )
    assert deleted.status_code == 409
    batch = await client.post(
        "/v1/users/batch/attributes", json={"uids": [user.uid]}, headers=creds(project)
    )
    assert batch.status_code == 200  # reads still allowed in maintenance
    assert batch.json()["data"][0]["attributes"]["attributes"]["level"]["value"] == 4

    await _set_status(session_maker, project.project_id, "discontinued")
    own = await client.post(
        "/v1/users/batch/attributes", json={"uids": [user.uid]}, headers=creds(project)
    )
    assert own.status_code == 403  # its own calls are refused by project auth
    token = await world.token(user.uid, "user:read")
    path = f"/v1/users/{user.uid}/projects/{project.project_id}/attributes"
    public = await client.get(path, headers=bearer(token))
    assert [a["attributes"]["attribute_key"] for a in public.json()["data"]] == ["level"]

    await _set_status(session_maker, project.project_id, "deleted")
    hidden = await client.get(path, headers=bearer(token))
    assert hidden.status_code == 409
    profile = await client.get(f"/v1/users/{user.uid}/full-profile", headers=bearer(token))
    assert profile.status_code == 200
    assert profile.json()["data"]["attributes"]["project_attributes"] == []


async def test_delete_and_batch(client: httpx.AsyncClient, world: World) -> None:
    alice, bob = await world.user(), await world.user()
    project = await world.project()
    other = await world.project()
    for u in (alice, bob):
        await world.consent(u.uid, project.project_id)
        await world.consent(u.uid, other.project_id)
    for u, n in ((alice, 1), (bob, 2)):
        for key in ("level", "rank"):
            resp = await client.post(
                f"/v1/users/{u.uid}/attributes", json=_attr(key, n), headers=creds(project)
            )
            assert resp.status_code == 200
    await client.post(
        f"/v1/users/{alice.uid}/attributes", json=_attr("level", 9), headers=creds(other)
    )

    batch = await client.post(
        "/v1/users/batch/attributes",
        json={"uids": [alice.uid, bob.uid, "u_nobody"], "attribute_keys": ["level"]},
        headers=creds(project),
    )
    assert batch.status_code == 200, batch.text
    items = {i["id"]: i["attributes"]["attributes"] for i in batch.json()["data"]}
    assert items[alice.uid] == {"level": items[alice.uid]["level"]}
    assert items[alice.uid]["level"]["value"] == 1  # its own value, not the other project's
    assert items[bob.uid]["level"]["value"] == 2 and items["u_nobody"] == {}
    too_many = await client.post(
        "/v1/users/batch/attributes", json={"uids": [str(i) for i in range(101)]},
        headers=creds(project),
    )  # fmt: skip
    assert too_many.status_code == 422
    assert (
        await client.post("/v1/users/batch/attributes", json={"uids": []}, headers=creds(project))
    ).status_code == 422

    body = {"attribute_keys": ["level", "missing"], "idempotency_key": uuid.uuid4().hex}
    url = f"/v1/users/{alice.uid}/attributes"
    resp = await client.request("DELETE", url, json=body, headers=creds(project))
    assert resp.status_code == 200, resp.text
    attrs = resp.json()["data"]["attributes"]
    assert attrs["deleted"] == ["level"] and attrs["not_found"] == ["missing"]
    replay = await client.request("DELETE", url, json=body, headers=creds(project))
    assert replay.headers.get("idempotent-replayed") == "true"
    assert replay.json() == resp.json()
    left = await client.post(
        "/v1/users/batch/attributes", json={"uids": [alice.uid]}, headers=creds(project)
    )
    assert list(left.json()["data"][0]["attributes"]["attributes"]) == ["rank"]
    mine_elsewhere = await client.post(
        "/v1/users/batch/attributes", json={"uids": [alice.uid]}, headers=creds(other)
    )
    assert mine_elsewhere.json()["data"][0]["attributes"]["attributes"]["level"]["value"] == 9
    no_keys = await client.request(
        "DELETE", url, json={"attribute_keys": [], "idempotency_key": "x"}, headers=creds(project)
    )
    assert no_keys.status_code == 422


VISIBLE = {
    # viewer: keys it may read among public / private / authorized
    "owner_user": {"pub", "priv", "auth"},
    "admin": {"pub", "priv", "auth"},
    "other_user": {"pub"},
    "owning_project": {"pub", "priv", "auth"},
    "authorized_project": {"pub", "auth"},
    "other_project": {"pub"},
    "anonymous": {"pub"},
}


@pytest.fixture
async def matrix(world: World) -> dict[str, Any]:
    user = await world.user()
    owner, authorized, other = await world.project(), await world.project(), await world.project()
    await world.consent(user.uid, owner.project_id)
    await world.consent(user.uid, authorized.project_id)
    admin = await world.user("admin")
    stranger = await world.user()
    return {
        "world": world,
        "user": user,
        "owner": owner,
        "headers": {
            "owner_user": bearer(await world.token(user.uid, "user:read")),
            "admin": bearer(await world.token(admin.uid, "openid")),
            "other_user": bearer(await world.token(stranger.uid, "profile")),
            "owning_project": creds(owner),
            "authorized_project": creds(authorized),
            "other_project": creds(other),
            "anonymous": {},
        },
    }


async def test_visibility_matrix(client: httpx.AsyncClient, matrix: dict[str, Any]) -> None:
    user, owner = matrix["user"], matrix["owner"]
    for key, visibility in (("pub", "public"), ("priv", "private"), ("auth", "authorized")):
        resp = await client.post(
            f"/v1/users/{user.uid}/attributes",
            json=_attr(key, {"v": key}, visibility),
            headers=creds(owner),
        )
        assert resp.status_code == 200, resp.text

    for viewer, headers in matrix["headers"].items():
        resp = await client.get(
            f"/v1/users/{user.uid}/projects/{owner.project_id}/attributes", headers=headers
        )
        if viewer == "anonymous":  # the spec's user:read (or project credentials)
            assert resp.status_code == 401, resp.text
            assert (await client.get(f"/v1/users/{user.uid}/full-profile")).status_code == 401
            continue
        assert resp.status_code == 200, (viewer, resp.text)
        assert resp.json()["meta"]["page"] == 1 and resp.json()["meta"]["total"] == len(
            VISIBLE[viewer]
        )
        seen = {a["attributes"]["attribute_key"] for a in resp.json()["data"]}
        assert seen == VISIBLE[viewer], viewer

        profile = await client.get(f"/v1/users/{user.uid}/full-profile", headers=headers)
        if viewer == "anonymous":
            assert profile.status_code == 401
            continue
        if viewer == "other_project":  # the user never authorized it (security item 15)
            assert profile.status_code == 403, profile.text
            continue
        assert profile.status_code == 200, (viewer, profile.text)
        attrs = profile.json()["data"]["attributes"]
        # The e-mail needs the `email` scope (granted by none of these viewers but the admin).
        email = user.email if viewer == "admin" else None
        assert attrs["uid"] == user.uid and attrs["email"] == email, viewer
        seen = {a["attribute_key"] for a in attrs["project_attributes"]}
        assert seen == VISIBLE[viewer], ("full-profile", viewer)

    no_scope = bearer(await _token_without_user_read(matrix))
    resp = await client.get(f"/v1/users/{user.uid}/full-profile", headers=no_scope)
    assert resp.status_code == 403
    missing = await client.get(
        f"/v1/users/u_missing/projects/{owner.project_id}/attributes",
        headers=matrix["headers"]["admin"],
    )
    assert missing.status_code == 404
    # Paged like every list: one attribute a page, in key order.
    paged = await client.get(
        f"/v1/users/{user.uid}/projects/{owner.project_id}/attributes",
        params={"per_page": 1, "page": 2},
        headers=matrix["headers"]["admin"],
    )
    body = paged.json()
    assert [a["attributes"]["attribute_key"] for a in body["data"]] == ["priv"]
    assert (body["meta"]["total"], body["meta"]["page"], body["meta"]["per_page"]) == (3, 2, 1)


async def _token_without_user_read(matrix: dict[str, Any]) -> str:
    world: World = matrix["world"]
    return await world.token(matrix["user"].uid, "mcc:read")
