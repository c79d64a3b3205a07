"""The HTTP hot path of webhook delivery, behind one small interface so both clients can be
measured on the same work (bench/webhooks_mining.py) and chosen by WEBHOOK_HTTP_CLIENT.

Redirects are never followed (a redirect could point at an internal address): a 3xx is a
failed attempt like any other non-2xx.
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import httpx
from aiohttp.abc import AbstractResolver, ResolveResult

from core.config import WebhookSettings
from webhooks.urls import UnsafeUrl, safe_addresses


@dataclass(frozen=True)
class SendResult:
    status_code: int | None
    latency_ms: int
    error: str | None

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class Sender(Protocol):
    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> SendResult: ...

    async def aclose(self) -> None: ...


def _error(exc: BaseException, timeout: float) -> str:
    """Coarse on purpose: the attempt log must not tell a refused port from a closed one or
    a reset (the log is readable by the project that chose the URL)."""
    if isinstance(exc, asyncio.TimeoutError | httpx.TimeoutException):
        return f"timed out after {timeout:g} s"
    if isinstance(exc, UnsafeUrl) or isinstance(getattr(exc, "os_error", None), UnsafeUrl):
        return "refused: the address is not allowed"
    return "connection failed"


class SafeResolver(AbstractResolver):
    """aiohttp resolves through the SSRF check: it connects only to addresses that passed."""

    def __init__(self, settings: WebhookSettings) -> None:
        self._settings = settings

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await safe_addresses(host.lower(), port, self._settings)
        return [
            ResolveResult(
                hostname=host,
                host=str(ip),
                port=port,
                family=socket.AF_INET6 if ip.version == 6 else socket.AF_INET,
                proto=0,
                flags=socket.AI_NUMERICHOST,
            )
            for ip in addresses
        ]

    async def close(self) -> None:
        return None


def _result(started: float, status: int | None, error: str | None) -> SendResult:
    latency = int((time.perf_counter() - started) * 1000)
    if status is not None and not 200 <= status < 300 and error is None:
        error = f"HTTP {status}"
    return SendResult(status, latency, error)


class AiohttpSender:
    def __init__(
        self, timeout: float, concurrency: int, settings: WebhookSettings | None = None
    ) -> None:
        self._timeout = timeout
        resolver: dict[str, Any] = {"resolver": SafeResolver(settings)} if settings else {}
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(
                limit=concurrency, limit_per_host=concurrency, use_dns_cache=False, **resolver
            ),
            timeout=aiohttp.ClientTimeout(total=timeout),
        )

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> SendResult:
        started = time.perf_counter()
        try:
            async with self._session.post(
                url, data=body, headers=headers, allow_redirects=False
            ) as resp:
                await resp.content.read(65536)
                return _result(started, resp.status, None)
        except (TimeoutError, aiohttp.ClientError, OSError, UnsafeUrl) as exc:
            return _result(started, None, _error(exc, self._timeout))

    async def aclose(self) -> None:
        await self._session.close()


class HttpxSender:
    def __init__(
        self, timeout: float, concurrency: int, settings: WebhookSettings | None = None
    ) -> None:
        self._settings = settings
        self._timeout = timeout
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            follow_redirects=False,
        )

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> SendResult:
        started = time.perf_counter()
        try:
            target, headers, extensions = await self._pinned(url, headers)
            # httpx's timeout is per phase; bound the whole exchange like aiohttp's total.
            resp = await asyncio.wait_for(
                self._client.post(target, content=body, headers=headers, extensions=extensions),
                self._timeout,
            )
            return _result(started, resp.status_code, None)
        except (TimeoutError, httpx.HTTPError, OSError, UnsafeUrl) as exc:
            return _result(started, None, _error(exc, self._timeout))

    async def _pinned(
        self, url: str, headers: dict[str, str]
    ) -> tuple[httpx.URL, dict[str, str], dict[str, Any]]:
        """Connect to a checked address (DNS rebinding), keeping Host and TLS name."""
        parsed = httpx.URL(url)
        if self._settings is None:
            return parsed, headers, {}
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        ip = (await safe_addresses(parsed.host.lower(), port, self._settings))[0]
        host_header = parsed.host + (f":{parsed.port}" if parsed.port else "")
        return (
            parsed.copy_with(host=str(ip)),
            {**headers, "Host": host_header},
            {"sni_hostname": parsed.host},
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def make_sender(
    kind: str, timeout: float, concurrency: int, settings: WebhookSettings | None = None
) -> Sender:
    """``settings``: connect only to addresses that pass the SSRF check (webhooks.urls)."""
    if kind == "httpx":
        return HttpxSender(timeout, concurrency, settings)
    if kind == "aiohttp":
        return AiohttpSender(timeout, concurrency, settings)
    raise ValueError(f"WEBHOOK_HTTP_CLIENT must be aiohttp or httpx, not {kind!r}")
