"""The API's versions (docs/versioning.md): the SemVer of the OpenAPI document, the path
versions ``GET /versions`` lists, and how an operation is marked deprecated.

- ``DOCUMENT_VERSION`` is ``info.version`` of the served document and of the committed
  ``openapi.json``: a breaking change needs a new major (``tests/contract`` checks it against
  the last released document, ``contract/released/``), an additive one a new minor.
- ``PATH_VERSIONS``: each ``/vN`` prefix with its status and, once the next is released, its
  sunset (12 months later, the specification's "Versioning" section).
- ``deprecated(...)``: the route keywords of a deprecated operation; the document then says
  ``deprecated: true`` with ``x-deprecated-since`` and ``x-sunset``, and every answer of the
  operation carries ``Deprecation`` (RFC 9745) and ``Sunset`` (RFC 8594) headers
  (``deprecation_headers``, sent by api/middleware.py).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta
from email.utils import formatdate
from typing import Any, Literal

DOCUMENT_VERSION = "1.1.0"

# A deprecated operation (or path version) stays served at least this long after the
# deprecation is announced (the specification: 12 months after the next version's release).
SUPPORT_AFTER_DEPRECATION = timedelta(days=365)

Status = Literal["current", "deprecated"]


@dataclass(frozen=True)
class PathVersion:
    """One path version (``/v1``) as ``GET /versions`` lists it."""

    name: str
    status: Status
    document_version: str  # the newest info.version of that major
    deprecated_since: date | None = None
    sunset: date | None = None


PATH_VERSIONS: tuple[PathVersion, ...] = (PathVersion("v1", "current", DOCUMENT_VERSION),)


@dataclass(frozen=True)
class Deprecation:
    """An operation's deprecation: announced ``since`` (the CHANGELOG's date), served until
    ``sunset``; ``successor`` names the operation to move to, if any."""

    since: date
    sunset: date
    successor: str | None = None

    def __post_init__(self) -> None:
        if self.sunset < self.since + SUPPORT_AFTER_DEPRECATION:
            raise ValueError("a deprecated operation is served 12 months after the notice")

    def extensions(self) -> dict[str, str]:
        found = {"x-deprecated-since": self.since.isoformat(), "x-sunset": self.sunset.isoformat()}
        if self.successor:
            found["x-successor"] = self.successor
        return found

    @classmethod
    def of(cls, operation: dict[str, Any]) -> Deprecation | None:
        """The deprecation an operation (or a route's ``openapi_extra``) declares."""
        since, sunset = operation.get("x-deprecated-since"), operation.get("x-sunset")
        if not (since and sunset):
            return None
        successor = operation.get("x-successor")
        return cls(date.fromisoformat(since), date.fromisoformat(sunset), successor)


def deprecated(since: date, sunset: date, successor: str | None = None) -> dict[str, Any]:
    """Keywords of a deprecated route: ``@router.get(path, ..., **deprecated(...))``."""
    notice = Deprecation(since, sunset, successor)
    return {"deprecated": True, "openapi_extra": notice.extensions()}


def _headers(notice: Deprecation) -> list[tuple[bytes, bytes]]:
    since = calendar.timegm(notice.since.timetuple())
    sunset = formatdate(calendar.timegm(notice.sunset.timetuple()), usegmt=True)
    headers = [(b"deprecation", f"@{since}".encode()), (b"sunset", sunset.encode())]
    if notice.successor:
        headers.append((b"link", f'<{notice.successor}>; rel="successor-version"'.encode()))
    return headers


def deprecation_headers(route: Any) -> list[tuple[bytes, bytes]]:
    """The headers every answer of ``route`` carries: none unless it is deprecated (a
    deprecated operation without its notice fails the contract's check, tests/contract)."""
    if route is None or not getattr(route, "deprecated", False):
        return []
    notice = Deprecation.of(getattr(route, "openapi_extra", None) or {})
    return [] if notice is None else _headers(notice)
