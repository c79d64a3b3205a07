"""Applying (ID token), validation, one pending application per developer, admin review."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.onboarding.conftest import WALLET, Actors, application_body

BAD_BODIES: list[tuple[dict[str, Any], str]] = [
    (application_body(project_name="ab"), "project_name"),
    (application_body(project_name="x" * 101), "project_name"),
    (application_body(project_name="   ab   "), "project_name"),
    (application_body(mcd_wallet_address="not-base58-0OIl"), "mcd_wallet_address"),
    (application_body(mcd_wallet_address="abc"), "mcd_wallet_address"),
    (application_body(mcd_wallet_address=None), "mcd_wallet_address"),
    (application_body(mcc_wallet_address="1" * 44), "mcc_wallet_address"),
    (application_body(company_name="c" * 101), "company_name"),
    (application_body(website_url="https://" + "w" * 250), "website_url"),
]  # fmt: skip


async def test_apply_validations(client: httpx.AsyncClient, actors: Actors) -> None:
    _, dev = await actors.developer()
    for body, field in BAD_BODIES:
        resp = await client.post("/v1/projects/apply", json=body, headers=dev)
        assert resp.status_code == 422, (field, resp.text)
        problem = resp.json()
        assert problem["type"].endswith("/errors/validation-error")
        assert field in [e["field"] for e in problem["errors"]], (field, problem)
    assert (await client.get("/v1/projects/applications", headers=dev)).json()["meta"]["total"] == 0
    resp = await client.post("/v1/projects/apply", json=application_body())
    assert resp.status_code == 401


async def test_apply_and_read_back(client: httpx.AsyncClient, actors: Actors) -> None:
    user, dev = await actors.developer()
    body = application_body(mcc_wallet_address=WALLET, developer_uid="someone-else")
    resp = await client.post("/v1/projects/apply", json=body, headers=dev)
    assert resp.status_code == 201, resp.text
    data = resp.json()["data"]
    assert data["type"] == "project_application"
    attrs = data["attributes"]
    assert attrs["project_name"] == "Moon Auctions"
    assert attrs["status"] == "pending"
    assert attrs["mcd_wallet_address"] == WALLET
    assert attrs["developer_uid"] == user.uid  # from the token, never from the body
    assert attrs["developer_email"] == user.email
    assert attrs["created_at"]

    again = await client.post("/api/open/projects/apply", json=application_body(), headers=dev)
    assert again.status_code == 409
    assert again.json()["type"].endswith("/errors/pending-application-exists")

    mine = await client.get("/api/open/projects/applications", headers=dev)
    assert [a["id"] for a in mine.json()["data"]] == [data["id"]]
    one = await client.get(f"/v1/projects/applications/{data['id']}", headers=dev)
    assert one.status_code == 200 and one.json()["data"]["attributes"]["api_key"] is None

    _, stranger = await actors.developer()
    hidden = await client.get(f"/v1/projects/applications/{data['id']}", headers=stranger)
    assert hidden.status_code == 404


async def test_one_pending_application_under_concurrency(
    client: httpx.AsyncClient, actors: Actors
) -> None:
    _, dev = await actors.developer()
    answers = await asyncio.gather(
        *(client.post("/v1/projects/apply", json=application_body(), headers=dev) for _ in range(6))
    )
    codes = sorted(r.status_code for r in answers)
    assert codes == [201] + [409] * 5, codes
    total = (await client.get("/v1/projects/applications", headers=dev)).json()["meta"]["total"]
    assert total == 1


async def test_admin_review_reject(client: httpx.AsyncClient, actors: Actors) -> None:
    admin = await actors.admin()
    user, dev = await actors.developer()
    app_id = (await client.post("/v1/projects/apply", json=application_body(), headers=dev)).json()[
        "data"
    ]["id"]

    # Admin only.
    refused = await client.get("/v1/admin/projects/applications", headers=dev)
    assert refused.status_code == 403
    assert refused.json()["type"].endswith("/errors/admin-required")
    assert (await client.get("/v1/admin/projects/applications")).status_code == 401

    listed = await client.get(
        "/v1/admin/projects/applications",
        params={"status": "pending", "per_page": 100},
        headers=admin,
    )
    assert listed.status_code == 200
    meta = listed.json()["meta"]
    assert meta["page"] == 1 and meta["per_page"] == 100 and meta["total"] >= 1
    item = next(a for a in listed.json()["data"] if a["id"] == app_id)
    assert item["attributes"]["developer_email"] == user.email
    assert item["attributes"]["company_name"] == "Moon Ltd"
    bad_filter = await client.get(
        "/v1/admin/projects/applications", params={"status": "nope"}, headers=admin
    )
    assert bad_filter.status_code == 422

    no_reason = await client.post(
        f"/v1/admin/projects/applications/{app_id}/reject", json={}, headers=admin
    )
    assert no_reason.status_code == 422
    rejected = await client.post(
        f"/api/open/admin/projects/applications/{app_id}/reject",
        json={"reason": "Incomplete"},
        headers=admin,
    )
    assert rejected.status_code == 200, rejected.text
    attrs = rejected.json()["data"]["attributes"]
    assert attrs["status"] == "rejected" and attrs["rejection_reason"] == "Incomplete"
    assert attrs["reviewed_by"] and attrs["reviewed_at"]

    for action, body in (("approve", None), ("reject", {"reason": "again"})):
        resp = await client.post(
            f"/v1/admin/projects/applications/{app_id}/{action}", json=body, headers=admin
        )
        assert resp.status_code == 409, (action, resp.text)
        assert resp.json()["type"].endswith("/errors/invalid-state")

    # A rejected application no longer blocks a new one.
    assert (
        await client.post("/v1/projects/apply", json=application_body(), headers=dev)
    ).status_code == 201
    missing = await client.post(
        "/v1/admin/projects/applications/00000000-0000-0000-0000-000000000000/approve",
        headers=admin,
    )
    assert missing.status_code == 404


@pytest.mark.parametrize("status", ["approved", "all"])
async def test_admin_list_filters(client: httpx.AsyncClient, actors: Actors, status: str) -> None:
    admin = await actors.admin()
    resp = await client.get(
        "/v1/admin/projects/applications", params={"status": status}, headers=admin
    )
    assert resp.status_code == 200
    if status != "all":
        assert all(a["attributes"]["status"] == status for a in resp.json()["data"])
