"""Where avatar images are stored: an interface, a local directory (development, tests, a
single host), chosen by configuration (``AVATAR_STORAGE``).

``s3`` is accepted as a setting so a deployment can select an S3-compatible bucket, but this
build ships no S3 client: selecting it fails at start-up with a clear message rather than
silently writing to local disk (see docs/organizations.md, "Avatars")."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Protocol

from core.config import Settings


class StorageNotConfigured(RuntimeError):
    """The configured avatar storage cannot be used."""


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


def avatar_public_url(settings: Settings) -> str:
    return settings.avatar_public_url or f"{settings.base_url.rstrip('/')}/media/avatars"


def storage_from_settings(settings: Settings) -> AvatarStorage:
    if settings.avatar_storage == "local":
        return LocalStorage(settings.avatar_dir, avatar_public_url(settings))
    raise StorageNotConfigured(
        "AVATAR_STORAGE=s3 is selected, but this build has no S3 client: set "
        "AVATAR_STORAGE=local (with AVATAR_DIR and AVATAR_PUBLIC_URL) or deploy a build with "
        "the S3 storage"
    )
