"""Credentials: a project with its api secret (API-key or HMAC form), or a user's bearer token.

Each credential turns one attempt of a request into headers. The HMAC form signs every attempt
afresh (a new timestamp), because the gateway accepts a write's signature once only.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .signing import canonical_json, request_signature


class Credentials(Protocol):
    def headers(self, method: str, target: str, body: object | None) -> dict[str, str]:
        """Headers for one attempt of ``method target`` with this (parsed JSON) body."""
        ...


@dataclass(frozen=True)
class ApiKeyAuth:
    """``X-Project-ID`` + ``X-API-Key: <api_secret>`` (the secret travels: use HTTPS)."""

    project_id: str | int
    api_secret: str = field(repr=False)

    def headers(self, method: str, target: str, body: object | None) -> dict[str, str]:
        return {"X-Project-ID": str(self.project_id), "X-API-Key": self.api_secret}


class _Timestamps:
    """Unix seconds for a signature, strictly increasing per signed message.

    Two attempts of one call inside the same second would otherwise carry the same signature,
    which the gateway refuses as a replay; the next second is still well inside the window.
    """

    def __init__(self, clock: Callable[[], float] = time.time, size: int = 4096) -> None:
        self._clock = clock
        self._last: OrderedDict[tuple[str, str, str], int] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def next(self, key: tuple[str, str, str]) -> int:
        now = int(self._clock())
        with self._lock:
            last = self._last.pop(key, None)
            ts = now if last is None or now > last else last + 1
            self._last[key] = ts
            if len(self._last) > self._size:
                self._last.popitem(last=False)
        return ts


@dataclass
class HmacAuth:
    """``X-Project-ID`` + ``X-Timestamp`` + ``X-Signature: sha256=<hex>`` (the secret never
    travels). ``clock`` returns Unix seconds (override it to correct a skewed host clock)."""

    project_id: str | int
    api_secret: str = field(repr=False)
    clock: Callable[[], float] = field(default=time.time, repr=False)
    _stamps: _Timestamps = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._stamps = _Timestamps(self.clock)

    def headers(self, method: str, target: str, body: object | None) -> dict[str, str]:
        ts = self._stamps.next((method.upper(), target, canonical_json(body)))
        return {
            "X-Project-ID": str(self.project_id),
            "X-Timestamp": str(ts),
            "X-Signature": request_signature(self.api_secret, method, target, ts, body),
        }


@dataclass(frozen=True)
class BearerAuth:
    """``Authorization: Bearer <access token>`` for user calls (OAuth 2.0)."""

    token: str = field(repr=False)

    def headers(self, method: str, target: str, body: object | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}
