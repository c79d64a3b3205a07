"""The one door to the chain: every JSON-RPC request the product makes passes through ``ChainRpc``.

One HTTP client per process (an ``aiohttp`` session, kept-alive connections, opened at the first
request inside the running loop and closed with the transport), bodies written and read with
orjson, single calls and batches, a time limit per request, and ONE map of what can go wrong onto
``chain/errors.py``:

=========================================================  ==================================
what happened                                              raised
=========================================================  ==================================
connection refused or reset, any aiohttp client error,    ``ChainUnavailable``
no whole answer within the time limit
HTTP 429                                                   ``ChainRateLimited`` (a
                                                           ``ChainUnavailable``) with
                                                           ``retry_after`` from ``Retry-After``
any other status than 200                                  ``ChainUnavailable``
a body that is not JSON-RPC, or a batch answered with      ``ChainUnavailable``
other ids than it asked
a JSON-RPC error meaning "not ready" (``TRANSIENT_CODES``)  ``ChainUnavailable``
-32002 "already been processed" / "Blockhash not found"    ``AlreadyProcessed`` /
                                                           ``BlockhashNotFound``
any other JSON-RPC error                                   ``ChainRpcError`` with its ``code``
=========================================================  ==================================

What may pass is retried first, inside ``_post`` (``chain/door.py``): an unreachable provider,
a time-out, a 429 (not before its ``Retry-After``), a 5xx or 408, and a single call answered
"node behind" (-32005), "min context slot not reached" (-32016) or "internal error" (-32603),
with jittered exponential backoff, as long as the next try starts within ``retry_within``
seconds of the first (an unreachable provider or a time-out: within ``UNREACHABLE_WITHIN``);
then the error above is raised. Each try first takes its turn in the
provider's request budget (``Budget``), shared by the deployment's processes through Redis.

Everything in ``chain/`` (the gateway's reads and writes, ``BlockReader``) and the chain views
use one ``ChainRpc`` per process; no other module speaks JSON-RPC (``tests/test_one_door.py``).
Every request passes through ``_post``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp
import orjson
from redis.asyncio import BlockingConnectionPool, Redis

from chain.door import Budget, Retryable, delay, node_not_ready
from chain.errors import (
    AlreadyProcessed,
    BlockhashNotFound,
    ChainError,
    ChainRateLimited,
    ChainRpcError,
    ChainUnavailable,
)
from chain.providers import Provider, Providers, merge_statuses
from core.config import Settings
from core.metrics import CHAIN_RPC_ERRORS, CHAIN_RPC_LATENCY, CHAIN_RPC_REQUESTS

# JSON-RPC error codes that say "the node is not ready", not "the request is wrong": block not
# available yet (-32004), node unhealthy/behind (-32005), block status not available yet
# (-32014), minimum context slot not reached (-32016), internal error (-32603).
TRANSIENT_CODES = frozenset({-32004, -32005, -32014, -32016, -32603})
METHOD_NOT_FOUND = -32601
# Of those, the ones a single call retries at once (the others are answers about a slot).
RETRIED_CODES = frozenset({-32005, -32016, -32603})
PREFLIGHT_FAILED = -32002
# A provider that does not answer at all (refused, reset, timed out) is an outage, not a busy
# provider: retried for this long at most, then raised to the caller (an activity retries; a
# failover picks another provider).
UNREACHABLE_WITHIN = 1.0
# HTTP statuses worth another try: the provider's gateway or the node is busy or restarting.
RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})

Answer = dict[str, Any]  # one JSON-RPC answer object: {"jsonrpc", "id", "result" | "error"}

_HEADERS = {"Content-Type": "application/json"}


class ChainRpc:
    """The JSON-RPC transport of one process: one HTTP client, one error map.

    ``timeout`` is the default time limit of one request (the whole answer, read); a call can
    ask for another (``time_limit``: a large ``getBlock`` batch). ``calls`` counts the calls
    per method (a batch of n counts n), for benchmarks and tests.
    """

    def __init__(
        self,
        url: str | Sequence[str],
        *,
        timeout: float = 10.0,
        retry_within: float = 0.0,
        budget: Budget | None = None,
        redis: Redis | None = None,
        max_lag: int = 30,
    ) -> None:
        urls = [url] if isinstance(url, str) else list(url)
        self.providers = Providers(urls, max_lag=max_lag)
        self._timeout = timeout
        self._retry_within = retry_within
        self._budget = budget
        self._redis = redis  # the budget's own client, closed with the transport
        self._probing: asyncio.Task[None] | None = None
        self._http: aiohttp.ClientSession | None = None  # opened by the first request
        self._closed = False
        self._ids = itertools.count(1)
        self.calls: Counter[str] = Counter()

    @classmethod
    def of(
        cls, settings: Settings, *, timeout: float = 10.0, retry_within: float | None = None
    ) -> ChainRpc:
        """The transport to the providers the settings name (``SOLANA_RPC_URLS``, a comma
        list, else ``SOLANA_RPC_URL``), with the
        deployment's request budget (``SOLANA_RPC_RPS``, through ``REDIS_URL``) and retries
        within ``SOLANA_RPC_RETRY_SECONDS`` (or ``retry_within``: the API answers a user, who
        should get its 503 in seconds, not after a worker's patience)."""
        if retry_within is None:
            retry_within = settings.solana_rpc_retry_seconds
        redis = budget = None
        if settings.solana_rpc_rps > 0:
            # its own small pool, that waits for a free connection (core/redis_client.py)
            pool = BlockingConnectionPool.from_url(
                settings.redis_url, max_connections=16, timeout=5
            )
            redis = Redis(connection_pool=pool)
            budget = Budget(
                redis, settings.solana_rpc_rps, max_wait=max(5.0, settings.solana_rpc_retry_seconds)
            )
        urls = [u.strip() for u in settings.solana_rpc_urls.split(",") if u.strip()]
        return cls(
            urls or settings.solana_rpc_url,
            timeout=timeout,
            retry_within=retry_within,
            budget=budget,
            redis=redis,
            max_lag=settings.solana_rpc_max_lag_slots,
        )

    @property
    def url(self) -> str:
        """The first provider's URL (tools that open a client of their own)."""
        return self.providers.all[0].url

    async def aclose(self) -> None:
        if self._probing is not None:
            self._probing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probing
        self._closed = True
        if self._http is not None:
            await self._http.close()
        if self._redis is not None:
            await self._redis.aclose()

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
        raw = orjson.dumps(body)
        if method == "getSignatureStatuses" and self.providers.several:
            return await self._statuses_everywhere(raw, time_limit)
        return await self._post(method, raw, time_limit, single=True)

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
        single = len(requests) == 1
        raw = await self._post(
            method, orjson.dumps(requests[0] if single else requests), time_limit, single=single
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
        if code == PREFLIGHT_FAILED:
            lowered = message.lower()
            if "already been processed" in lowered:
                raise AlreadyProcessed(message, code)
            if "blockhash not found" in lowered:
                raise BlockhashNotFound(message, code)
        raise ChainRpcError(message, code if isinstance(code, int) else None)

    async def _post(
        self, method: str, body: bytes, time_limit: float | None, *, single: bool = False
    ) -> bytes:
        """The one HTTP request every call and batch makes: to the healthiest provider (a send:
        to every healthy one), its turn in the budget first; on a failure the next provider at
        once, and only once every provider failed a pause (backoff, ``Retry-After``) and
        another round, while it starts within ``retry_within`` of the first."""
        if self.providers.several and self._probing is None:
            self._probing = asyncio.create_task(self._probe())
        loop = asyncio.get_running_loop()
        started, wait = loop.time(), self._retry_within
        attempt, tried = 0, set[str]()
        while True:
            try:
                if method == "sendTransaction" and self.providers.several:
                    return await self._broadcast(method, body, time_limit)
                provider = self.providers.pick(tried) or self.providers.ranked()[0]
                tried.add(provider.name)
                return await self._once(provider, method, body, time_limit, single)
            except Retryable as retry:
                if self.providers.pick(tried) is not None and method != "sendTransaction":
                    continue  # failover: the next provider now
                tried.clear()
                pause = delay(attempt, retry.retry_after)
                limit = wait if retry.busy else min(UNREACHABLE_WITHIN, wait)
                if loop.time() + pause > started + limit:
                    raise retry.error from None
                attempt += 1
                await asyncio.sleep(pause)

    async def _broadcast(self, method: str, body: bytes, time_limit: float | None) -> bytes:
        """A send to every healthy provider at once: the first answer without an error (else
        the first answer) wins; Retryable only when none answered."""
        ranked = self.providers.ranked()
        got = await asyncio.gather(
            *(self._once(p, method, body, time_limit, True) for p in ranked),
            return_exceptions=True,
        )
        bodies = [g for g in got if isinstance(g, bytes)]
        if bodies:
            return next((b for b in bodies if b'"error"' not in b), bodies[0])
        for failure in got:
            if isinstance(failure, BaseException) and not isinstance(failure, Retryable):
                raise failure
        first = got[0]
        assert isinstance(first, Retryable)
        raise first

    async def _statuses_everywhere(self, body: bytes, time_limit: float | None) -> bytes:
        """getSignatureStatuses from every healthy provider, merged (``merge_statuses``): a
        status from any that has it, never "not landed" from one lagging node."""
        method = "getSignatureStatuses"
        got = await asyncio.gather(
            *(self._once(p, method, body, time_limit, True) for p in self.providers.ranked()),
            return_exceptions=True,
        )
        answers = []
        for raw in got:
            if isinstance(raw, bytes):
                with contextlib.suppress(ChainError):
                    answers.append(self.decode(method, raw))
        if not answers:  # none answered: the usual way, with its retries and error
            return await self._post(method, body, time_limit, single=True)
        return orjson.dumps({"jsonrpc": "2.0", "id": 0, "result": merge_statuses(answers)})

    async def _probe(self) -> None:
        """Each provider's slot every ``probe_interval``: the lag that benches it, and the
        answer that brings it back."""
        body = orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "getSlot", "params": []})
        while True:
            for provider in self.providers.all:
                try:
                    raw = await self._once(provider, "getSlot", body, 2.0, True)
                    slot: int | None = int(self.decode("getSlot", raw))
                except (Retryable, ChainError, ValueError, TypeError):
                    slot = None
                self.providers.probed(provider, slot)
            await asyncio.sleep(self.providers.probe_interval)

    async def _once(
        self, provider: Provider, method: str, body: bytes, time_limit: float | None, single: bool
    ) -> bytes:
        name = provider.name
        limit = self._timeout if time_limit is None else time_limit
        if self._budget is not None:
            try:
                await self._budget.take(name)
            except TimeoutError as exc:
                self._failed(provider, method, "budget")
                raise ChainUnavailable(f"{method}: {exc}") from exc
        CHAIN_RPC_REQUESTS.labels(name, method).inc()
        started = asyncio.get_running_loop().time()
        try:
            async with (
                asyncio.timeout(limit),
                self._session().post(provider.url, data=body, headers=_HEADERS) as resp,
            ):
                status, content = resp.status, await resp.read()
                retry_header = resp.headers.get("Retry-After")
        except TimeoutError as exc:
            self._failed(provider, method, "timeout")
            error = ChainUnavailable(f"{method}: no answer within {limit:g} s")
            raise Retryable(error, busy=False) from exc
        except (aiohttp.ClientError, OSError) as exc:
            self._failed(provider, method, "unreachable")
            error = ChainUnavailable(f"{method}: {type(exc).__name__}: {exc}")
            raise Retryable(error, busy=False) from exc
        finally:
            took = asyncio.get_running_loop().time() - started
            CHAIN_RPC_LATENCY.labels(name, method).observe(took)
        if status == 429:
            self._failed(provider, method, "rate_limited")
            retry_after = retry_after_seconds(retry_header)
            if retry_after and self._budget is not None:
                await self._budget.pause(name, retry_after)
            limited = ChainRateLimited(f"{method}: HTTP 429 from the RPC provider", retry_after)
            raise Retryable(limited, retry_after)
        if status != 200:
            self._failed(provider, method, "http")
            error = ChainUnavailable(f"{method}: HTTP {status}")
            if status in RETRIED_STATUSES:
                raise Retryable(error)
            raise error
        if single and node_not_ready(content, RETRIED_CODES):
            self._failed(provider, method, "node_behind")
            raise Retryable(_as_error(method, content))
        self.providers.answered(provider, took)
        return content

    def _session(self) -> aiohttp.ClientSession:
        """The process's HTTP session, opened in the running loop at the first request.

        aiohttp rather than httpx: a request costs about 0.2 ms of CPU where httpx's cost 1.0
        (issue 43, an idle worker's polls). The time limit is ``_once``'s own
        (``asyncio.timeout``), none of aiohttp's (one timer per request less); no proxy is taken
        from the environment (httpx took ``HTTP(S)_PROXY``; no deployment sets one)."""
        if self._http is None:
            if self._closed:
                raise RuntimeError("the chain transport is closed")
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        return self._http

    def _failed(self, provider: Provider, method: str, kind: str) -> None:
        CHAIN_RPC_ERRORS.labels(provider.name, method, kind).inc()
        self.providers.failed(provider)


def _as_error(method: str, raw: bytes) -> ChainError:
    try:
        ChainRpc.decode(method, raw)
    except ChainError as exc:
        return exc
    return ChainUnavailable(f"{method}: the node is not ready")  # pragma: no cover


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
