"""Version discovery (docs/versioning.md): every path version, its status and sunset."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field

from api.envelope import meta, resource
from api.openapi import problems
from api.typed import Attributes, Listing
from api.versions import PATH_VERSIONS, PathVersion, Status

router = APIRouter(tags=["health"])


class VersionAttributes(Attributes):
    version: str = Field(description="The path version, e.g. `v1`")
    base_path: str = Field(description="Where its operations are served, e.g. `/v1`")
    status: Status = Field(
        description="`current`: the newest; `deprecated`: superseded, served until `sunset_at`"
    )
    document_version: str = Field(
        description="The newest SemVer `info.version` of its OpenAPI document (`/openapi.json`)"
    )
    deprecated_at: str | None = Field(description="The day its deprecation was announced")
    sunset_at: str | None = Field(
        description="The day after which it may be gone (RFC 8594); null while it is current"
    )

    @classmethod
    def of(cls, version: PathVersion) -> VersionAttributes:
        since, sunset = version.deprecated_since, version.sunset
        return cls(
            version=version.name,
            base_path=f"/{version.name}",
            status=version.status,
            document_version=version.document_version,
            deprecated_at=None if since is None else since.isoformat(),
            sunset_at=None if sunset is None else sunset.isoformat(),
        )


@router.get("/versions", response_model=Listing[VersionAttributes], responses=problems(429))
async def versions() -> dict[str, Any]:
    """The API's versions: each path version with its status and sunset date (public).

    A version is supported for 12 months after the next one is released; breaking changes come
    only with a new major version (SemVer 2.0.0 in `info.version` of `/openapi.json`)."""
    items = [resource("api_version", v.name, VersionAttributes.of(v)) for v in PATH_VERSIONS]
    return {"data": items, "meta": meta(total=len(items))}
