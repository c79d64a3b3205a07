"""Issue 31, the Low items that are fixed (the others are accepted risks in docs/security.md)."""

from __future__ import annotations

from io import BytesIO

import httpx
import pytest
from PIL import Image

from profiles import avatar
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
    assert r.status_code == 403 and slug(r) == "forbidden", r.text

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
