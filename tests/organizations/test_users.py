"""The base profile, display names at their bounds, and avatar uploads: verified by decoding,
re-encoded without metadata, served back, refused when too large or not an allowed image."""

from __future__ import annotations

import uuid
from io import BytesIO

import httpx
from fastapi import FastAPI
from PIL import Image

from tests.factories import World


def bearer(value: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {value}"}


def image_bytes(fmt: str, size: tuple[int, int] = (32, 24), **save: object) -> bytes:
    out = BytesIO()
    Image.new("RGB", size, (200, 30, 90)).save(out, fmt, **save)
    return out.getvalue()


def with_exif() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "SecretCamera"  # Make
    exif[0x8825] = {2: (48.0, 51.0, 29.0)}  # GPS latitude
    return image_bytes("JPEG", exif=exif.tobytes())


async def upload(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    data: bytes,
    name: str = "a.png",
    content_type: str = "image/png",
) -> httpx.Response:
    return await client.post(
        "/v1/users/me/avatar", headers=auth, files={"file": (name, data, content_type)}
    )


async def test_display_name_bounds_and_base_profile(
    client: httpx.AsyncClient, world: World
) -> None:
    user, other = await world.user(), await world.user()
    auth = bearer(await world.token(user.uid, "user:read user:write"))
    for name, status in (("", 422), ("A", 200), ("x" * 50, 200), ("x" * 51, 422)):
        r = await client.patch(
            "/v1/users/me/profile",
            headers=auth,
            json={"display_name": name, "idempotency_key": uuid.uuid4().hex},
        )
        assert r.status_code == status, (len(name), r.text)
        if status == 200:
            assert r.json()["data"]["attributes"]["display_name"] == name
    r = await client.get(f"/v1/users/{other.uid}/profile", headers=auth)
    assert r.status_code == 200, r.text
    attributes = r.json()["data"]["attributes"]
    assert attributes["uid"] == other.uid and "email" not in attributes
    assert (await client.get("/v1/users/u_nobody/profile", headers=auth)).status_code == 404
    assert (await client.get(f"/v1/users/{other.uid}/profile")).status_code == 401
    no_scope = bearer(await world.token(user.uid, "org:read"))
    r = await client.get(f"/v1/users/{other.uid}/profile", headers=no_scope)
    assert r.status_code == 403


async def test_avatar_is_cleaned_stored_and_served(
    client: httpx.AsyncClient, world: World, app: FastAPI
) -> None:
    user = await world.user()
    auth = bearer(await world.token(user.uid, "user:read user:write"))
    original = with_exif()
    assert b"SecretCamera" in original
    # sent as a PNG named .png: the bytes say JPEG, and JPEG is what is stored
    r = await upload(client, auth, original + b"<script>trailing</script>")
    assert r.status_code == 200, r.text
    attributes = r.json()["data"]["attributes"]
    assert attributes["content_type"] == "image/jpeg" and attributes["avatar_url"].endswith(".jpg")
    assert (attributes["width"], attributes["height"]) == (32, 24)
    name = attributes["avatar_url"].rsplit("/", 1)[1]
    stored = (app.state.settings.avatar_dir / name).read_bytes()
    assert b"SecretCamera" not in stored and b"script" not in stored
    with Image.open(BytesIO(stored)) as again:
        assert again.format == "JPEG" and not again.getexif()
    served = await client.get(f"/media/avatars/{name}")
    assert served.status_code == 200 and served.content == stored
    # every project sees it: the profile's avatar_url
    me = await client.get("/v1/users/me", headers=auth)
    assert me.json()["data"]["attributes"]["avatar_url"] == attributes["avatar_url"]
    # the same image again: the same URL; each allowed format is accepted
    repeat = await upload(client, auth, original)
    assert repeat.json()["data"]["attributes"]["avatar_url"] == attributes["avatar_url"]
    for fmt, ctype in (("PNG", "image/png"), ("GIF", "image/gif"), ("WEBP", "image/webp")):
        r = await upload(client, auth, image_bytes(fmt), f"x.{fmt.lower()}", ctype)
        assert r.status_code == 200 and r.json()["data"]["attributes"]["content_type"] == ctype


async def test_avatar_refusals(client: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    auth = bearer(await world.token(user.uid, "user:write"))

    async def refused(response: httpx.Response, status: int, slug: str) -> None:
        assert response.status_code == status, response.text
        assert response.json()["type"].endswith(f"/{slug}")

    # more than 2 MB: refused from its Content-Length, before it is parsed
    big = image_bytes("PNG") + b"\0" * (2 * 1024 * 1024)
    await refused(await upload(client, auth, big), 413, "payload-too-large")
    # just over 2 MB inside the framing slack: refused after reading at most 2 MB + 1
    await refused(
        await upload(client, auth, b"\0" * (2 * 1024 * 1024 + 1)), 413, "payload-too-large"
    )
    # too many pixels (a tiny file that would decode to 5000 x 10)
    await refused(
        await upload(client, auth, image_bytes("PNG", (5000, 10))), 413, "payload-too-large"
    )
    # a valid image of a format not allowed
    await refused(
        await upload(client, auth, image_bytes("BMP"), "a.bmp", "image/bmp"),
        415,
        "unsupported-media-type",
    )
    # text claiming to be a PNG, and a PNG cut short
    await refused(
        await upload(client, auth, b"<html><script>alert(1)</script></html>"),
        415,
        "unsupported-media-type",
    )
    png = image_bytes("PNG", (64, 64))
    await refused(await upload(client, auth, png[: len(png) // 2]), 415, "unsupported-media-type")
    # not multipart; no file field
    r = await client.post(
        "/v1/users/me/avatar", headers=auth | {"Content-Type": "image/png"}, content=png
    )
    await refused(r, 415, "unsupported-media-type")
    r = await client.post("/v1/users/me/avatar", headers=auth, data={"other": "x"})
    await refused(r, 415, "unsupported-media-type")
    r = await client.post(
        "/v1/users/me/avatar", headers=auth, files={"picture": ("a.png", png, "image/png")}
    )
    await refused(r, 422, "validation-error")
    # scopes
    reader = bearer(await world.token(user.uid, "user:read"))
    await refused(await upload(client, reader, png), 403, "insufficient-scope")
    assert (await upload(client, {}, png)).status_code == 401
