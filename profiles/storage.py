"""Where avatar images are stored: an interface and two implementations chosen by
configuration (``AVATAR_STORAGE``):

- ``local``: a directory (``AVATAR_DIR``), written atomically, served by the API under
  ``/media/avatars`` (or by whatever serves ``AVATAR_PUBLIC_URL``);
- ``s3``: an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2...), one ``PutObject`` per
  image over HTTPS, path-style, signed with AWS Signature Version 4 (``sigv4_headers``, checked
  against AWS's published example). Selected but not configured, it refuses to start, naming
  the missing settings.

Names are content-addressed, so a put is idempotent."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol
from urllib.parse import quote, urlsplit

import httpx

from core.config import Settings


class StorageNotConfigured(RuntimeError):
    """The configured avatar storage cannot be used."""


class StorageError(RuntimeError):
    """The storage refused or failed a write."""


class AvatarStorage(Protocol):
    async def put(self, name: str, data: bytes, content_type: str) -> str:
        """Store ``data`` under ``name`` (idempotent) and return its public URL."""
        ...


class LocalStorage:
    def __init__(self, directory: Path, public_url: str) -> None:
        self.directory = directory
        self.public_url = public_url.rstrip("/")

    def _write(self, name: str, data: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.directory / name
        if target.exists():
            return  # content-addressed: the same name holds the same bytes
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)  # atomic: readers never see half a file
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    async def put(self, name: str, data: bytes, content_type: str) -> str:
        await asyncio.to_thread(self._write, name, data)
        return f"{self.public_url}/{name}"


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def sigv4_headers(
    method: str,
    url: str,
    headers: dict[str, str],
    payload_sha256: str,
    *,
    access_key: str,
    secret_key: str,
    region: str,
    now: datetime,
    service: str = "s3",
) -> dict[str, str]:
    """``headers`` plus ``host``, ``x-amz-date``, ``x-amz-content-sha256`` and the SigV4
    ``Authorization`` for a request without a query string."""
    parts = urlsplit(url)
    amz_date = now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    day = amz_date[:8]
    signed = {k.lower(): " ".join(v.strip().split()) for k, v in headers.items()}
    signed |= {"host": parts.netloc, "x-amz-date": amz_date, "x-amz-content-sha256": payload_sha256}
    names = sorted(signed)
    canonical = "\n".join(
        [
            method,
            quote(parts.path or "/", safe="/~"),
            "",  # no query string
            "".join(f"{n}:{signed[n]}\n" for n in names),
            ";".join(names),
            payload_sha256,
        ]
    )
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = _hmac(("AWS4" + secret_key).encode(), day)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    signed["authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, "
        f"SignedHeaders={';'.join(names)}, Signature={signature}"
    )
    return signed


class S3Storage:
    """PutObject into an S3-compatible bucket, path-style (``{endpoint}/{bucket}/{key}``)."""

    def __init__(
        self,
        *,
        endpoint: str,
        bucket: str,
        region: str,
        access_key: str,
        secret_key: str,
        prefix: str = "",
        public_url: str = "",
        timeout: float = 10.0,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.bucket, self.region, self.prefix = bucket, region, prefix
        self._access, self._secret = access_key, secret_key
        self.public_url = (public_url or f"{self.endpoint}/{bucket}").rstrip("/")
        self._timeout = timeout

    async def put(self, name: str, data: bytes, content_type: str) -> str:
        key = f"{self.prefix}{name}"
        url = f"{self.endpoint}/{self.bucket}/{quote(key, safe='/~')}"
        headers = sigv4_headers(
            "PUT",
            url,
            {"content-type": content_type, "cache-control": "public, max-age=31536000"},
            hashlib.sha256(data).hexdigest(),
            access_key=self._access,
            secret_key=self._secret,
            region=self.region,
            now=datetime.now(UTC),
        )
        headers.pop("host")  # httpx sends the same Host itself
        try:
            async with httpx.AsyncClient(timeout=self._timeout) as client:
                response = await client.put(url, content=data, headers=headers)
        except httpx.HTTPError as exc:
            raise StorageError(f"avatar storage unreachable: {exc!r}") from exc
        if response.status_code // 100 != 2:
            raise StorageError(f"avatar storage answered {response.status_code}")
        return f"{self.public_url}/{key}"


def avatar_public_url(settings: Settings) -> str:
    return settings.avatar_public_url or f"{settings.base_url.rstrip('/')}/media/avatars"


_S3_SETTINGS = ("endpoint", "bucket", "access_key", "secret_key", "region", "prefix")


def storage_from_settings(settings: Settings) -> AvatarStorage:
    if settings.avatar_storage == "local":
        return LocalStorage(settings.avatar_dir, avatar_public_url(settings))
    # Each S3Storage argument is the setting AVATAR_S3_<ARGUMENT>; the first four are required.
    s3 = {name: getattr(settings, f"avatar_s3_{name}") for name in _S3_SETTINGS}
    missing = [f"AVATAR_S3_{name.upper()}" for name in _S3_SETTINGS[:4] if not s3[name]]
    if missing:
        raise StorageNotConfigured(
            f"AVATAR_STORAGE=s3 needs {', '.join(missing)} (or set AVATAR_STORAGE=local)"
        )
    return S3Storage(**s3, public_url=settings.avatar_public_url)
