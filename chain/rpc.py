"""The one door to the chain: every JSON-RPC request the product makes passes through ``ChainRpc``.

One HTTP client per process (httpx, kept-alive connections), bodies written and read with
orjson, single calls and batches, a time limit per request, and ONE map of what can go wrong onto
``chain/errors.py``:

=========================================================  ==================================
what happened                                              raised
=========================================================  ==================================
connection refused or reset, any httpx transport error,    ``ChainUnavailable``
no whole answer within the time limit
HTTP 429                                                   ``ChainRateLimited`` (a
                                                           ``ChainUnavailable``) with
                                                           ``retry_after`` from ``Retry-After``
any other status than 200                                  ``ChainUnavailable``
a body that is not JSON-RPC, or a batch answered with      ``ChainUnavailable``
other ids than it asked
a JSON-RPC error meaning "not ready" (``TRANSIENT_CODES``)  ``ChainUnavailable``
any other JSON-RPC error                                   ``ChainRpcError`` with its ``code``
=========================================================  ==================================

Everything in ``chain/`` (the gateway's reads and writes, ``BlockReader``) and the chain views
use one ``ChainRpc`` per process; no other module speaks JSON-RPC (``tests/test_one_door.py``).
Retries, a request budget per provider and failover across providers (issue 39) belong in
``_post``: every request passes through it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import orjson

from chain.errors import ChainRateLimited, ChainRpcError, ChainUnavailable
from core.config import Settings

# JSON-RPC error codes that say "the node is not ready", not "the request is wrong": block not
# available yet (-32004), node unhealthy/behind (-32005), block status not available yet
# (-32014), minimum context slot not reached (-32016), internal error (-32603).
TRANSIENT_CODES = frozenset({-32004, -32005, -32014, -32016, -32603})
METHOD_NOT_FOUND = -32601

Answer = dict[str, Any]  # one JSON-RPC answer object: {"jsonrpc", "id", "result" | "error"}

_HEADERS = {"Content-Type": "application/json"}


class ChainRpc:
    """The JSON-RPC transport of one process: one HTTP client, one error map.

    ``timeout`` is the default time limit of one request (the whole answer, read); a call can
    ask for another (``time_limit``: a large ``getBlock`` batch). ``calls`` counts the calls
    per method (a batch of n counts n), for benchmarks and tests.
    """

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self._url = url
        self._timeout = timeout
        self._http = httpx.AsyncClient(timeout=timeout)
        self._ids = itertools.count(1)
        self.calls: Counter[str] = Counter()

    @classmethod
    def of(cls, settings: Settings, *, timeout: float = 10.0) -> ChainRpc:
        """The transport to the cluster the settings name (``SOLANA_RPC_URL``)."""
        return cls(settings.solana_rpc_url, timeout=timeout)

    @property
    def url(self) -> str:
        return self._url

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ChainRpc:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def call(
        self, method: str, params: Sequence[Any] = (), *, time_limit: float | None = None
    ) -> Any:
        """The ``result`` of one call; raises per the error map."""
        return self.decode(method, await self.call_raw(method, params, time_limit=time_limit))

    async def call_raw(
        self, method: str, params: Sequence[Any] = (), *, time_limit: float | None = None
    ) -> bytes:
        """The undecoded body of one call (a large answer is parsed off the event loop with
        ``decode``); transport and HTTP failures raised, JSON-RPC errors left in the body."""
        self.calls[method] += 1
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        return await self._post(method, orjson.dumps(body), time_limit)

    async def batch(
        self, method: str, calls: Sequence[Sequence[Any]], *, time_limit: float | None = None
    ) -> list[Answer]:
        """``method`` once per params list, in ONE HTTP request (a JSON-RPC batch when more
        than one): the answer objects in the same order, each to be read with ``result`` (so a
        caller can tell one answer's error from another's)."""
        if not calls:
            return []
        self.calls[method] += len(calls)
        ids = [next(self._ids) for _ in calls]
        requests = [
            {"jsonrpc": "2.0", "id": i, "method": method, "params": list(params)}
            for i, params in zip(ids, calls, strict=True)
        ]
        raw = await self._post(
            method, orjson.dumps(requests if len(requests) > 1 else requests[0]), time_limit
        )
        doc = _loads(method, raw)
        answers = doc if isinstance(doc, list) else [doc]
        by_id = {a.get("id"): a for a in answers if isinstance(a, dict)}
        if any(i not in by_id for i in ids):
            raise ChainUnavailable(f"{method}: {len(by_id)} answers to {len(calls)} calls")
        return [by_id[i] for i in ids]

    @staticmethod
    def decode(method: str, raw: bytes) -> Any:
        """The ``result`` of one call's undecoded body (``call_raw``)."""
        doc = _loads(method, raw)
        if not isinstance(doc, dict):
            raise ChainUnavailable(f"{method}: the node answered something that is not JSON-RPC")
        return ChainRpc.result(method, doc)

    @staticmethod
    def result(method: str, answer: Answer) -> Any:
        """One answer object's ``result``, or its error raised per the error map."""
        error = answer.get("error")
        if error is None:
            if "result" not in answer:
                raise ChainUnavailable(f"{method}: an answer without result or error")
            return answer["result"]
        code = error.get("code") if isinstance(error, dict) else None
        message = f"{method}: {error.get('message') if isinstance(error, dict) else error}"
        if code in TRANSIENT_CODES:
            raise ChainUnavailable(message)
        raise ChainRpcError(message, code if isinstance(code, int) else None)

    async def _post(self, method: str, body: bytes, time_limit: float | None) -> bytes:
        """The one HTTP request every call and batch makes (issue 39: retries, budgets and
        failover go here)."""
        limit = self._timeout if time_limit is None else time_limit
        try:
            async with asyncio.timeout(limit):
                resp = await self._http.post(
                    self._url, content=body, headers=_HEADERS, timeout=limit
                )
        except TimeoutError as exc:
            raise ChainUnavailable(f"{method}: no answer within {limit:g} s") from exc
        except (httpx.HTTPError, OSError) as exc:
            raise ChainUnavailable(f"{method}: {type(exc).__name__}: {exc}") from exc
        if resp.status_code == 429:
            retry_after = retry_after_seconds(resp.headers.get("Retry-After"))
            raise ChainRateLimited(f"{method}: HTTP 429 from the RPC provider", retry_after)
        if resp.status_code != 200:
            raise ChainUnavailable(f"{method}: HTTP {resp.status_code}")
        return resp.content


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header as seconds from now: delay-seconds or an HTTP date (RFC 9110
    10.2.3); None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _loads(method: str, raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ChainUnavailable(f"{method}: the node answered something that is not JSON") from exc
