"""The one time formatter of the wire: ISO 8601 in UTC with a ``Z`` suffix.

Every timestamp a client sees goes through ``iso`` (datetimes) or ``iso_unix`` (chain
timestamps in unix seconds), so one response never mixes ``+00:00`` and ``Z``. Naive datetimes
are taken as UTC (the database stores UTC). Dates without a time keep ``date.isoformat()``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload


@overload
def iso(value: datetime) -> str: ...
@overload
def iso(value: None) -> None: ...
@overload
def iso(value: datetime | None) -> str | None: ...
def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def iso_unix(ts: int | None) -> str | None:
    """A chain timestamp (unix seconds); None or a value no calendar holds gives None."""
    if ts is None:
        return None
    try:
        return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return None
