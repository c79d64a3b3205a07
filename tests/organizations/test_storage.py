"""Avatar storage: the SigV4 signer against AWS's published example, a PutObject as an
S3-compatible server receives it, and the configuration checks."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiohttp import web

from core.config import Settings
from core.embedded import free_port
from profiles.storage import (
    LocalStorage,
    S3Storage,
    StorageError,
    StorageNotConfigured,
    sigv4_headers,
    storage_from_settings,
)

EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_sigv4_matches_the_aws_example() -> None:
    """docs.aws.amazon.com, "Signature Calculations for the Authorization Header", GET Object."""
    headers = sigv4_headers(
        "GET",
        "https://examplebucket.s3.amazonaws.com/test.txt",
        {"Range": "bytes=0-9"},
        EMPTY,
        access_key="AKIAIOSFODNN7EXAMPLE",
        secret_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region="us-east-1",
        now=datetime(2013, 5, 24, tzinfo=UTC),
    )
    assert headers["authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    )


@pytest.fixture
async def bucket() -> AsyncIterator[tuple[str, list[web.Request], dict[str, bytes]]]:
    seen: list[web.Request] = []
    stored: dict[str, bytes] = {}

    async def put(request: web.Request) -> web.Response:
        seen.append(request)
        stored[request.path] = await request.read()
        return web.Response(status=200 if "fail" not in request.path else 403)

    app = web.Application()
    app.router.add_put("/{tail:.*}", put)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    yield f"http://127.0.0.1:{port}", seen, stored
    await runner.cleanup()


async def test_s3_put_object(bucket: tuple[str, list[web.Request], dict[str, bytes]]) -> None:
    endpoint, seen, stored = bucket
    storage = S3Storage(
        endpoint=endpoint, bucket="media", region="eu-west-1", access_key="AK",
        secret_key="SK", prefix="avatars/",
    )  # fmt: skip
    url = await storage.put("abc.png", b"\x89PNG data", "image/png")
    assert url == f"{endpoint}/media/avatars/abc.png"
    [request] = seen
    assert stored["/media/avatars/abc.png"] == b"\x89PNG data"
    assert request.headers["Content-Type"] == "image/png"
    assert request.headers["x-amz-content-sha256"] == hashlib.sha256(b"\x89PNG data").hexdigest()
    auth = request.headers["Authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AK/")
    assert "/eu-west-1/s3/aws4_request, SignedHeaders=cache-control;content-type;host;" in auth
    with pytest.raises(StorageError):
        await storage.put("fail.png", b"x", "image/png")


def test_storage_is_chosen_by_configuration(tmp_path: Path) -> None:
    local = storage_from_settings(Settings(avatar_dir=tmp_path, base_url="https://api.x"))
    assert isinstance(local, LocalStorage) and local.public_url == "https://api.x/media/avatars"
    with pytest.raises(StorageNotConfigured, match="AVATAR_S3_BUCKET, AVATAR_S3_ACCESS_KEY"):
        storage_from_settings(Settings(avatar_storage="s3", avatar_s3_endpoint="https://s3"))
    s3 = storage_from_settings(
        Settings(
            avatar_storage="s3", avatar_s3_endpoint="https://s3.example", avatar_s3_bucket="b",
            avatar_s3_access_key="a", avatar_s3_secret_key="s",
            avatar_public_url="https://cdn.example/av",
        )
    )  # fmt: skip
    assert isinstance(s3, S3Storage) and s3.public_url == "https://cdn.example/av"
