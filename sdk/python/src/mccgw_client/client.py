"""Sync and async clients over httpx.

One *logical call* (``client.post(...)``) may take several attempts. It is prepared once: the
body, its canonical bytes and, for a write, its ``idempotency_key`` (generated unless given) are
fixed, so every retry is the same request to the gateway, which replays the first answer
instead of acting twice. Each attempt is signed afresh (the HMAC form takes a new timestamp).

Retried, with exponential back-off (full jitter) or the server's ``Retry-After``: a lost
connection or time-out, 429, 502, 503, 504 and ``409 idempotency-key-in-use``; but a write only
when it carries its idempotency key (a write sent with ``idempotency_key=False`` is never
retried).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Self, Unpack

import httpx

from ._calls import (
    CallOptions,
    ClientOptions,
    OperationOptions,
    Page,
    Params,
    ResponseT,
    RetryPolicy,
    _Base,
    _Call,
    _page,
    _parse,
    new_idempotency_key,
    retry_after_seconds,
)
from ._calls import Response as Response
from ._operation import Operation
from .auth import Credentials
from .errors import ProblemError
from .resources import (
    AdminResources,
    AsyncAdminResources,
    AsyncProjectResources,
    ProjectResources,
)


class SyncTransport(_Base):
    """What both synchronous clients share: the low-level calls (``post``, ``call``...)."""

    def __init__(
        self,
        base_url: str,
        credentials: Credentials | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
        event_hooks: Mapping[str, list[Any]] | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        super().__init__(base_url, credentials, options)
        self._http = httpx.Client(
            timeout=self.timeout, transport=transport, event_hooks=dict(event_hooks or {})
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, call: _Call) -> Response:
        # Not streamed: send() has read and closed the answer, so a retry leaves nothing open.
        while True:
            answer: httpx.Response | httpx.TransportError
            try:
                answer = self._http.send(self._build(self._http, call))
            except httpx.TransportError as exc:
                answer = exc
            outcome = self._outcome(call, answer)
            if isinstance(outcome, Response):
                return outcome
            time.sleep(outcome)

    def request(self, method: str, path: str, **options: Unpack[CallOptions]) -> Response:
        """One logical call (options: :class:`CallOptions`). Problems are raised as
        :mod:`mccgw_client.errors` classes."""
        return self._send(self._prepare(method, path, **options))

    def get(self, path: str, *, params: Params = None, **kw: Any) -> Response:
        return self.request("GET", path, params=params, **kw)

    def post(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return self.request("POST", path, json=json, **kw)

    def put(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return self.request("PUT", path, json=json, **kw)

    def patch(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return self.request("PATCH", path, json=json, **kw)

    def delete(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return self.request("DELETE", path, json=json, **kw)

    def call(self, op: Operation[ResponseT], **options: Unpack[OperationOptions]) -> ResponseT:
        """A typed operation (``mccgw_client.operations``; options: :class:`OperationOptions`);
        returns its response model."""
        return _parse(op, self._send(self._prepare_operation(op, options)))

    def call_pages(
        self, op: Operation[ResponseT], *, per_page: int = 100, **options: Unpack[OperationOptions]
    ) -> Iterator[ResponseT]:
        """Every page of a typed list operation, as its response model, until ``meta.total``."""
        page = 1
        while True:
            this_page = options.copy()
            this_page["params"] = {
                **(options.get("params") or {}),
                "page": page,
                "per_page": per_page,
            }
            answer = self.call(op, **this_page)
            yield answer
            if _is_last(answer, page, per_page):
                return
            page += 1

    def pages(
        self, path: str, *, params: Params = None, per_page: int = 100, start: int = 1
    ) -> Iterator[Page]:
        """Every page of a list (``page``/``per_page``, until ``meta.total`` is reached)."""
        page = start
        while True:
            response = self.get(path, params={**(params or {}), "page": page, "per_page": per_page})
            current = _page(response, page, per_page)
            yield current
            if current.is_last:
                return
            page += 1

    def paginate(self, path: str, *, params: Params = None, per_page: int = 100) -> Iterator[Any]:
        """Every item of a list, page after page."""
        for page in self.pages(path, params=params, per_page=per_page):
            yield from page.items


class AsyncTransport(_Base):
    """What both asynchronous clients share (the calls of :class:`SyncTransport`, awaited)."""

    def __init__(
        self,
        base_url: str,
        credentials: Credentials | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        super().__init__(base_url, credentials, options)
        self._http = httpx.AsyncClient(timeout=self.timeout, transport=transport)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, call: _Call) -> Response:
        while True:  # as Client._send, awaited
            answer: httpx.Response | httpx.TransportError
            try:
                answer = await self._http.send(self._build(self._http, call))
            except httpx.TransportError as exc:
                answer = exc
            outcome = self._outcome(call, answer)
            if isinstance(outcome, Response):
                return outcome
            await asyncio.sleep(outcome)

    async def request(self, method: str, path: str, **options: Unpack[CallOptions]) -> Response:
        """One logical call (options: :class:`CallOptions`). Problems are raised as
        :mod:`mccgw_client.errors` classes."""
        return await self._send(self._prepare(method, path, **options))

    async def get(self, path: str, *, params: Params = None, **kw: Any) -> Response:
        return await self.request("GET", path, params=params, **kw)

    async def post(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return await self.request("POST", path, json=json, **kw)

    async def put(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return await self.request("PUT", path, json=json, **kw)

    async def patch(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return await self.request("PATCH", path, json=json, **kw)

    async def delete(self, path: str, *, json: Any = None, **kw: Any) -> Response:
        return await self.request("DELETE", path, json=json, **kw)

    async def call(
        self, op: Operation[ResponseT], **options: Unpack[OperationOptions]
    ) -> ResponseT:
        """A typed operation (``mccgw_client.operations``; options: :class:`OperationOptions`);
        returns its response model."""
        return _parse(op, await self._send(self._prepare_operation(op, options)))

    async def call_pages(
        self, op: Operation[ResponseT], *, per_page: int = 100, **options: Unpack[OperationOptions]
    ) -> AsyncIterator[ResponseT]:
        """Every page of a typed list operation, as its response model, until ``meta.total``."""
        page = 1
        while True:
            this_page = options.copy()
            this_page["params"] = {
                **(options.get("params") or {}),
                "page": page,
                "per_page": per_page,
            }
            answer = await self.call(op, **this_page)
            yield answer
            if _is_last(answer, page, per_page):
                return
            page += 1

    async def pages(
        self, path: str, *, params: Params = None, per_page: int = 100, start: int = 1
    ) -> AsyncIterator[Page]:
        page = start
        while True:
            response = await self.get(
                path, params={**(params or {}), "page": page, "per_page": per_page}
            )
            current = _page(response, page, per_page)
            yield current
            if current.is_last:
                return
            page += 1

    async def paginate(
        self, path: str, *, params: Params = None, per_page: int = 100
    ) -> AsyncIterator[Any]:
        async for page in self.pages(path, params=params, per_page=per_page):
            for item in page.items:
                yield item


class Client(SyncTransport, ProjectResources):
    """Synchronous client of a project (or of a user or developer, with their token)::

    gw = Client("https://gw.example", HmacAuth(project_id, api_secret))
    lock = gw.funds.lock(user_uid=uid, currency="MCC", amount="25", reason="bid")
    lock.id, lock.attributes.status
    gw.post("/v1/funds/lock", json={...}).data  # the low-level call, as a dict
    """


class AdminClient(SyncTransport, AdminResources):
    """Synchronous client of an administrator (``BearerAuth`` of an admin token)::

    admin = AdminClient("https://gw.example", BearerAuth(admin_token))
    admin.projects.approve(application_id)
    """


class AsyncClient(AsyncTransport, AsyncProjectResources):
    """Asynchronous client (same API as :class:`Client`, awaited)."""


class AsyncAdminClient(AsyncTransport, AsyncAdminResources):
    """Asynchronous administrator's client (same API as :class:`AdminClient`, awaited)."""


def _is_last(answer: Any, page: int, per_page: int) -> bool:
    """After a page of a typed list: was it the last? (``meta.total``, else a short page)."""
    items = getattr(answer, "data", None)
    total = getattr(getattr(answer, "meta", None), "total", None)
    if not isinstance(items, list) or not items:
        return True
    if isinstance(total, int):
        return page * per_page >= total
    return len(items) < per_page


__all__ = [
    "AdminClient",
    "AsyncAdminClient",
    "AsyncClient",
    "AsyncTransport",
    "Client",
    "Page",
    "ProblemError",
    "Response",
    "RetryPolicy",
    "SyncTransport",
    "new_idempotency_key",
    "retry_after_seconds",
]
