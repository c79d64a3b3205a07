"""The HTTP hot path of webhook delivery, behind one small interface so both clients can be
measured on the same work (bench/webhooks_mining.py) and chosen by WEBHOOK_HTTP_CLIENT.

Redirects are never followed (a redirect could point at an internal address): a 3xx is a
failed attempt like any other non-2xx.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

import aiohttp
import httpx


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
    if isinstance(exc, asyncio.TimeoutError | httpx.TimeoutException):
        return f"timed out after {timeout:g} s"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:500]


def _result(started: float, status: int | None, error: str | None) -> SendResult:
    latency = int((time.perf_counter() - started) * 1000)
    if status is not None and not 200 <= status < 300 and error is None:
        error = f"HTTP {status}"
    return SendResult(status, latency, error)


class AiohttpSender:
    def __init__(self, timeout: float, concurrency: int) -> None:
        self._timeout = timeout
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency),
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
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            return _result(started, None, _error(exc, self._timeout))

    async def aclose(self) -> None:
        await self._session.close()


class HttpxSender:
    def __init__(self, timeout: float, concurrency: int) -> None:
        self._timeout = timeout
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            follow_redirects=False,
        )

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> SendResult:
        started = time.perf_counter()
        try:
            # httpx's timeout is per phase; bound the whole exchange like aiohttp's total.
            resp = await asyncio.wait_for(
                self._client.post(url, content=body, headers=headers), self._timeout
            )
            return _result(started, resp.status_code, None)
        except (TimeoutError, httpx.HTTPError, OSError) as exc:
            return _result(started, None, _error(exc, self._timeout))

    async def aclose(self) -> None:
        await self._client.aclose()


def make_sender(kind: str, timeout: float, concurrency: int) -> Sender:
    if kind == "httpx":
        return HttpxSender(timeout, concurrency)
    if kind == "aiohttp":
        return AiohttpSender(timeout, concurrency)
    raise ValueError(f"WEBHOOK_HTTP_CLIENT must be aiohttp or httpx, not {kind!r}")
