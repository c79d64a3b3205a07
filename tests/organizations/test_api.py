"""Organization, tech-tree, mining-statistics and legacy team endpoints over the real app:
scopes, bad input, the administrators' writes, and numbers checked against the rules."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import User
from db.models.organizations import OrgMembership
from tests.factories import World
from tests.organizations.support import (
    YESTERDAY,
    admin_headers,
    bearer,
    days_back,
    hierarchy,
    post,
    qualifying_history,
    select_station_ids,
)

pytestmark = pytest.mark.usefixtures("clean")
Sessions = async_sessionmaker[AsyncSession]


async def test_admin_creates_units_idempotently_and_checks_parents(
    client: httpx.AsyncClient, world: World
) -> None:
    admin = await admin_headers(world)
    user = await world.user()
    body = {"unit_type": "system", "number": 1, "name": "Sol"}
    # not an administrator
    r = await post(
        client, "/v1/admin/organizations", bearer(await world.token(user.uid, "openid")), body
    )
    assert r.status_code == 403 and r.json()["type"].endswith("/admin-required")
    assert (await client.post("/v1/admin/organizations", json=body)).status_code == 401
    key = {"Idempotency-Key": "sys-1"}
    first = await client.post("/v1/admin/organizations", json=body, headers=admin | key)
    again = await client.post("/v1/admin/organizations", json=body, headers=admin | key)
    assert first.status_code == 201 and again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true" and again.content == first.content
    # the same unit under a new key: 200, unchanged; other attributes: 409
    assert (await post(client, "/v1/admin/organizations", admin, body)).status_code == 200
    r = await post(client, "/v1/admin/organizations", admin, body | {"name": "Other"})
    assert r.status_code == 409 and r.json()["type"].endswith("/unit-exists")
    # a station's parent is a matrix; unknown parents and bad fields are refused
    r = await post(
        client,
        "/v1/admin/organizations",
        admin,
        {"unit_type": "station", "number": 1, "name": "A", "parent": "system-1"},
    )
    assert r.status_code == 422 and r.json()["type"].endswith("/invalid-parent")
    r = await post(
        client,
        "/v1/admin/organizations",
        admin,
        {"unit_type": "matrix", "number": 1, "name": "M", "parent": "sector-9"},
    )
    assert r.status_code == 404
    for bad in ({"unit_type": "galaxy"}, {"number": 0}, {"name": ""}, {"parent": "station1"}):
        r = await post(
            client,
            "/v1/admin/organizations",
            admin,
            {"unit_type": "sector", "number": 2, "name": "S"} | bad,
        )
        assert r.status_code == 422, (bad, r.text)
    r = await post(
        client,
        "/v1/admin/organizations",
        admin,
        {"unit_type": "sector", "number": 2, "name": "S", "manager_uid": "u_nobody"},
    )
    assert r.status_code == 404


async def test_members_are_placed_moved_and_listed(
    client: httpx.AsyncClient, world: World, session_maker: Sessions
) -> None:
    admin = await admin_headers(world)
    await hierarchy(client, admin)
    users = [await world.user() for _ in range(3)]
    for u in users:
        r = await post(
            client, "/v1/admin/organizations/station-1/members", admin, {"user_uid": u.uid}
        )
        assert r.status_code == 200 and r.json()["data"]["attributes"]["moved"] is True
    # already there: nothing changes; then moved to station-2
    r = await post(
        client, "/v1/admin/organizations/station-1/members", admin, {"user_uid": users[0].uid}
    )
    assert r.json()["data"]["attributes"]["moved"] is False
    r = await post(
        client, "/v1/admin/organizations/station-2/members", admin, {"user_uid": users[0].uid}
    )
    assert r.status_code == 200 and r.json()["data"]["attributes"]["station"] == "station-2"
    r = await post(
        client, "/v1/admin/organizations/matrix-1/members", admin, {"user_uid": users[1].uid}
    )
    assert r.status_code == 422 and r.json()["type"].endswith("/invalid-unit")
    r = await post(
        client, "/v1/admin/organizations/station-1/members", admin, {"user_uid": "u_nobody"}
    )
    assert r.status_code == 404
    r = await post(client, f"/v1/admin/organizations/members/{users[2].uid}/leave", admin, {})
    assert r.status_code == 200 and r.json()["data"]["attributes"]["left_at"] is not None
    r = await post(client, f"/v1/admin/organizations/members/{users[2].uid}/leave", admin, {})
    assert r.status_code == 200 and r.json()["data"]["attributes"]["moved"] is False
    # only administrators place members
    member_token = bearer(await world.token(users[1].uid, "openid org:read"))
    for path, body in (
        ("/v1/admin/organizations/station-2/members", {"user_uid": users[1].uid}),
        (f"/v1/admin/organizations/members/{users[1].uid}/leave", {}),
    ):
        r = await post(client, path, member_token, body)
        assert r.status_code == 403 and r.json()["type"].endswith("/admin-required")
    async with session_maker() as s:
        stays = list(
            await s.scalars(select(OrgMembership).where(OrgMembership.user_uid == users[0].uid))
        )
        assert sorted(m.left_at is None for m in stays) == [False, True]
        moved = await s.get(User, users[0].uid)
        assert moved is not None and (moved.station_id, moved.unit_id) == (2, 1)

    reader = bearer(await world.token(users[0].uid, "org:read"))
    r = await client.get("/v1/organizations", headers=reader, params={"type": "station"})
    assert r.status_code == 200 and r.json()["meta"]["total"] == 2
    assert [u["id"] for u in r.json()["data"]] == ["station-1", "station-2"]
    assert r.json()["data"][0]["attributes"]["member_count"] == 1
    r = await client.get("/v1/organizations", headers=reader, params={"parent": "sector-1"})
    assert [u["id"] for u in r.json()["data"]] == ["matrix-1"]
    r = await client.get("/v1/organizations", headers=reader, params={"per_page": 2, "page": 2})
    assert r.json()["meta"] | {"request_id": None} == {
        "request_id": None,
        "api_version": "v1",
        "total": 5,
        "page": 2,
        "per_page": 2,
    }
    r = await client.get("/v1/organizations/matrix-1", headers=reader)
    attributes = r.json()["data"]["attributes"]
    assert (attributes["parent"], attributes["member_count"], attributes["lit"]) == (
        "sector-1",
        2,
        False,
    )
    r = await client.get(
        "/v1/organizations/system-1/members", headers=reader, params={"per_page": 1}
    )
    assert r.json()["meta"]["total"] == 2 and len(r.json()["data"]) == 1
    # scopes and bad input
    assert (await client.get("/v1/organizations")).status_code == 401
    no_scope = bearer(await world.token(users[0].uid, "user:read"))
    for path in (
        "/v1/organizations",
        "/v1/organizations/station-1",
        "/v1/organizations/station-1/members",
    ):
        r = await client.get(path, headers=no_scope)
        assert r.status_code == 403 and r.json()["type"].endswith("/insufficient-scope")
    assert (await client.get("/v1/organizations/station-9", headers=reader)).status_code == 404
    assert (await client.get("/v1/organizations/planet-1", headers=reader)).status_code == 422
    assert (
        await client.get("/v1/organizations", headers=reader, params={"type": "x"})
    ).status_code == 422
    assert (
        await client.get("/v1/organizations", headers=reader, params={"per_page": 101})
    ).status_code == 422
    # legacy team: station-2 (Beta), its matrix, no manager (an access token needs org:read
    # there, as on /v1/organizations: issue 38)
    team_token = await world.token(users[0].uid, "openid org:read")
    r = await client.get("/organization/my-team", headers=bearer(team_token))
    assert r.status_code == 200, r.text
    assert r.json() == {
        "station": {"id": 2, "name": "Beta", "member_count": 1},
        "unit": {"id": 1, "name": "Ring", "member_count": 2},
        "manager": None,
    }
    assert (await client.get("/organization/my-team")).json()["error"] == "unauthorized"


async def test_stats_and_tech_tree_follow_the_rules(
    client: httpx.AsyncClient, world: World, session_maker: Sessions
) -> None:
    admin = await admin_headers(world)
    await hierarchy(client, admin)
    member = await world.user()
    r = await post(
        client, "/v1/admin/organizations/station-1/members", admin, {"user_uid": member.uid}
    )
    assert r.status_code == 200
    async with session_maker() as s:
        ids = dict((await s.execute(select_station_ids())).all())
        # station-1: 21 qualifying days (the job has not lit it); station-2: 20 days
        await qualifying_history(s, ids[1], YESTERDAY, days_back(21))
        await qualifying_history(s, ids[2], YESTERDAY, days_back(20))
        await s.commit()
    tok = await world.token(member.uid, "org:read")
    tree = await client.get("/v1/tech-tree/user", headers=bearer(tok))
    assert tree.status_code == 200, tree.text
    units = {u["id"]: u for u in tree.json()["data"]["attributes"]["units"]}
    assert list(units) == ["station-1", "matrix-1", "sector-1", "system-1"]
    assert units["station-1"]["lit"] is False and units["station-1"]["qualifying_days"] == "21.00"
    assert (
        units["station-1"]["missing_members"] == 899
        and units["station-1"]["missing_days"] == "0.00"
    )
    assert units["matrix-1"]["qualifying_days"] == "20.50"
    bonus = await client.get("/v1/tech-tree/bonus", headers=bearer(tok))
    assert bonus.json()["data"]["attributes"] == {"bonus_percent": 0, "bonus_multiplier": 1.0}

    # unlock lights the station the rule lights, once; upgrade cannot light matrix-1 (20.5)
    r = await post(client, "/v1/tech-tree/unlock", bearer(tok), {})
    assert r.status_code == 200, r.text
    states = {u["id"]: u for u in r.json()["data"]["attributes"]["units"]}
    assert states["station-1"]["lit"] is True and states["station-1"]["changed"] is True
    assert r.json()["data"]["attributes"]["bonus_multiplier"] == 1.1
    r = await post(client, "/v1/tech-tree/unlock", bearer(tok), {})
    assert {u["id"]: u["changed"] for u in r.json()["data"]["attributes"]["units"]}[
        "station-1"
    ] is False
    r = await post(client, "/v1/tech-tree/upgrade", bearer(tok), {})
    states = {u["id"]: u for u in r.json()["data"]["attributes"]["units"]}
    assert [states[k]["lit"] for k in ("matrix-1", "sector-1", "system-1")] == [False] * 3
    assert states["matrix-1"]["missing_days"] == "0.50"
    bonus = await client.get("/v1/tech-tree/bonus", headers=bearer(tok))
    assert bonus.json()["data"]["attributes"] == {"bonus_percent": 10, "bonus_multiplier": 1.1}
    # one more qualifying day for station-2 makes the average 21: upgrade lights all three
    async with session_maker() as s:
        await s.execute(update_kpi(ids[2], YESTERDAY - timedelta(days=25)))
        await s.commit()
    r = await post(client, "/v1/tech-tree/upgrade", bearer(tok), {})
    states = {u["id"]: u for u in r.json()["data"]["attributes"]["units"]}
    assert [states[k]["changed"] for k in ("matrix-1", "sector-1", "system-1")] == [True] * 3
    bonus = await client.get("/v1/tech-tree/bonus", headers=bearer(tok))
    assert bonus.json()["data"]["attributes"] == {"bonus_percent": 100, "bonus_multiplier": 2.0}

    # public stats, checkable by hand
    stats = await client.get("/v1/organizations/station-1/stats")
    assert stats.status_code == 200, stats.text
    a = stats.json()["data"]["attributes"]
    assert (a["qualifying_days"], a["lit"], a["member_count"], len(a["daily"])) == (
        "21.00",
        True,
        1,
        30,
    )
    assert a["mining_input_30d"] == str(30 * 950 * 25)
    assert a["daily"][-1] == {
        "day": YESTERDAY.isoformat(),
        "member_count": 950,
        "mining_input": str(950 * 25),
        "avg_input": "25",
        "qualifies": True,
    }
    a = (await client.get("/v1/organizations/matrix-1/stats")).json()["data"]["attributes"]
    assert a["qualifying_days"] == "21.00" and a["station_days"] == [
        {"id": "station-1", "qualifying_days": 21, "mining_input": str(30 * 950 * 25)},
        {"id": "station-2", "qualifying_days": 21, "mining_input": str(30 * 950 * 25)},
    ]
    assert (await client.get("/v1/organizations/station-7/stats")).status_code == 404

    # scopes and the non-member
    config = await client.get("/v1/tech-tree/config")
    assert config.status_code == 200
    assert [lv["cumulative_percent"] for lv in config.json()["data"]["attributes"]["levels"]] == [
        10,
        30,
        60,
        100,
    ]
    no_scope = bearer(await world.token(member.uid, "user:read"))
    for method, path in (
        ("GET", "/v1/tech-tree/user"),
        ("GET", "/v1/tech-tree/bonus"),
        ("POST", "/v1/tech-tree/unlock"),
        ("POST", "/v1/tech-tree/upgrade"),
    ):
        # A GET takes no body (400 if it carries one): the key goes with the POSTs only.
        body = {"idempotency_key": "k"} if method == "POST" else None
        r = await client.request(method, path, headers=no_scope, json=body)
        assert r.status_code == 403, path
        assert (await client.request(method, path, json=body)).status_code == 401
    outsider = bearer(await world.token((await world.user()).uid, "org:read"))
    r = await post(client, "/v1/tech-tree/unlock", outsider, {})
    assert r.status_code == 409 and r.json()["type"].endswith("/not-a-member")
    r = await client.post("/v1/tech-tree/unlock", headers=outsider, json={})
    assert r.status_code == 422  # no idempotency key
    r = await client.get("/v1/tech-tree/user", headers=outsider)
    assert (
        r.json()["data"]["attributes"]["units"] == []
        and r.json()["data"]["attributes"]["station"] is None
    )


def update_kpi(station_id: int, day: Any) -> Any:
    from db.models.organizations import StationDailyKpi

    return (
        update(StationDailyKpi)
        .where(StationDailyKpi.station_id == station_id, StationDailyKpi.day == day)
        .values(qualifies=True)
    )
