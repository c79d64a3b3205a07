"""Issue 31, the Low items that are fixed (the others are accepted risks in docs/security.md)."""

from __future__ import annotations

import json
import secrets
from io import BytesIO
from typing import Any

import httpx
import pytest
from authlib.common.security import generate_token
from fastapi import FastAPI
from PIL import Image

from db.models.organizations import OrgUnit
from profiles import avatar
from tests.access.test_oauth_flow import TOKEN_URL, login_and_consent, oauth_client
from tests.factories import World
from tests.security.conftest import bearer, slug


async def test_l5_a_project_token_sees_and_revokes_only_its_own_grant(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    ours, theirs = await world.project(), await world.project()
    for project in (ours, theirs):
        await world.consent(user.uid, project.project_id, ["profile", "funds:read"])
    client_id, _ = await world.oauth_client(ours.project_id, public=True)
    token = bearer(await world.token(user.uid, "user:read user:write", client_id=client_id))

    listed = await client.get("/v1/users/me/authorizations", headers=token)
    assert listed.status_code == 200, listed.text
    assert [g["id"] for g in listed.json()["data"]] == [str(ours.project_id)]
    r = await client.delete(
        f"/v1/users/me/authorizations/{theirs.project_id}",
        headers={**token, "Idempotency-Key": "l5-other"},
    )
    # Another project's grant does not exist for this token (issue 38: 404, as in the list).
    assert r.status_code == 404 and slug(r) == "not-found", r.text

    # The gateway's own (first-party) sign-in sees and manages every grant.
    own = bearer(await world.token(user.uid, "user:read"))
    everything = (await client.get("/v1/users/me/authorizations", headers=own)).json()["data"]
    assert sorted(g["id"] for g in everything) == sorted(
        [str(ours.project_id), str(theirs.project_id)]
    )
    # A project may still withdraw its own grant (a "disconnect" button).
    r = await client.delete(
        f"/v1/users/me/authorizations/{ours.project_id}",
        headers={**token, "Idempotency-Key": "l5-own"},
    )
    assert r.status_code == 200, r.text


async def test_l7_the_sign_in_page_and_the_console_cannot_be_framed(
    client: httpx.AsyncClient, world: World
) -> None:
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id)
    for path, params in (
        ("/auth/oauth/authorize", {"response_type": "code", "client_id": client_id}),
        ("/console/signed-out", {}),
        ("/v1/mcc/price", {}),
    ):
        r = await client.get(path, params=params)
        assert r.headers.get("x-frame-options") == "DENY", (path, r.status_code)
        assert "frame-ancestors 'none'" in r.headers.get("content-security-policy", ""), path


def _png(size: tuple[int, int], kind: str = "PNG") -> bytes:
    out = BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, kind)
    return out.getvalue()


def test_l2_avatar_decoding_is_bounded() -> None:
    """A 4096 x 4096 PNG is 50 KB on the wire and 64 MB of RGBA decoded: refused from its
    header now (413). A large accepted image is stored at most 1024 px a side, a JPEG decoded
    at reduced scale."""
    huge = _png((4096, 4096))
    assert len(huge) < avatar.MAX_BYTES
    with pytest.raises(avatar.AvatarRejected) as refused:
        avatar.clean(huge)
    assert refused.value.status == 413
    for kind in ("PNG", "JPEG"):
        stored = avatar.clean(_png((2000, 1500), kind))
        assert (stored.width, stored.height) == (1024, 768), kind


async def test_l4_public_unit_stats_are_computed_once_a_minute(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The uncached 30-day aggregate of a unit is computed at most once a minute per process,
    however often anonymous callers ask; each answer keeps its own request id."""
    from api.routes import organizations as routes

    computed = 0
    real = routes.units.stats

    async def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal computed
        computed += 1
        return await real(*args, **kwargs)

    monkeypatch.setattr(routes.units, "stats", counting)
    routes._STATS.clear()
    unit = await _any_station(client)
    answers = [await client.get(f"/v1/organizations/{unit}/stats") for _ in range(5)]
    assert all(r.status_code == 200 for r in answers), answers[0].text
    assert computed == 1
    ids = {r.json()["meta"]["request_id"] for r in answers}
    assert len(ids) == 5
    assert len({json.dumps(r.json()["data"], sort_keys=True) for r in answers}) == 1


async def _any_station(client: httpx.AsyncClient) -> str:
    """A station of its own (a number no other test uses), made directly in the database."""
    app = client._transport.app  # type: ignore[attr-defined]
    number = 900_000 + secrets.randbelow(99_999)
    async with app.state.session_maker() as s:
        s.add(OrgUnit(unit_type="station", number=number, name=f"L4 {number}"))
        await s.commit()
    return f"station-{number}"


async def test_l10_a_wrong_client_cannot_burn_a_refresh_token(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    """The refresh grant rotated the token before checking its client: another client's
    attempt used it up, and the rightful client's next refresh looked like a reuse, revoking
    the whole family. Now only the token's own client rotates it."""
    user = await world.user()
    project = await world.project()
    owner_id, _ = await world.oauth_client(project.project_id, public=True)
    other_id, _ = await world.oauth_client(project.project_id, public=True)
    verifier = generate_token(48)
    async with oauth_client(app, owner_id, None) as owner:
        location = await login_and_consent(owner, user.username, verifier)
        token = await owner.fetch_token(
            TOKEN_URL, authorization_response=location, code_verifier=verifier
        )
    form = {"grant_type": "refresh_token", "refresh_token": token["refresh_token"]}
    stolen = await client.post("/auth/oauth/token", data={**form, "client_id": other_id})
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant", stolen.text
    mine = await client.post("/auth/oauth/token", data={**form, "client_id": owner_id})
    assert mine.status_code == 200, mine.text
    assert mine.json()["refresh_token"] != token["refresh_token"]
