"""What the sync and async clients share (``client.py``): preparing one logical call, signing
each attempt, deciding after an attempt whether to retry, and the response types."""

from __future__ import annotations

import email.utils
import json as jsonlib
import logging
import random
import time
import uuid
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, TypeVar, cast
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel

from ._operation import Operation
from .auth import Credentials, HmacAuth
from .errors import TransportError, problem_from, slug_of
from .signing import canonical_json

log = logging.getLogger("mccgw_client")

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REPLAY_HEADER = "idempotent-replayed"
ModelT = TypeVar("ModelT", bound=BaseModel)
ResponseT = TypeVar("ResponseT")
Params = Mapping[str, Any] | None
NoKey = Literal[False]


class CallOptions(TypedDict, total=False):
    """The options of one logical call (``Client.request`` and the verbs)."""

    params: Params
    json: Any
    idempotency_key: str | NoKey | None
    headers: Mapping[str, str] | None
    credentials: Credentials | None


class OperationOptions(TypedDict, total=False):
    """The options of a typed operation call (``Client.call``)."""

    path_params: Mapping[str, Any] | None
    params: Params
    body: Any
    idempotency_key: str | NoKey | None


class DeprecatedOperationWarning(UserWarning):
    """The gateway answered with ``Deprecation`` (RFC 9745): the operation will go at its
    ``Sunset`` (RFC 8594); move to its successor before then (the gateway's CHANGELOG.md)."""


def new_idempotency_key() -> str:
    """A fresh key for one logical write (kept across its retries)."""
    return f"sdk-{uuid.uuid4().hex}"


@dataclass(frozen=True)
class RetryPolicy:
    """How a logical call is retried. ``max_attempts=1`` disables retries."""

    max_attempts: int = 4
    backoff: float = 0.25  # the first back-off ceiling in seconds; doubles each retry
    max_backoff: float = 8.0
    max_retry_after: float = 60.0  # a longer Retry-After is raised to the caller instead
    statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    slugs: frozenset[str] = frozenset({"idempotency-key-in-use"})

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        ceiling = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return random.uniform(0, ceiling)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date), None when absent/garbled."""
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass
class Response:
    """A successful (2xx/3xx) answer."""

    status_code: int
    headers: httpx.Headers
    content: bytes
    attempts: int = 1
    idempotency_key: str | None = None

    @property
    def body(self) -> Any:
        return jsonlib.loads(self.content) if self.content else None

    @property
    def data(self) -> Any:
        body = self.body
        return body.get("data") if isinstance(body, dict) else None

    @property
    def meta(self) -> dict[str, Any]:
        body = self.body
        meta = body.get("meta") if isinstance(body, dict) else None
        return meta if isinstance(meta, dict) else {}

    @property
    def replayed(self) -> bool:
        """True when the gateway answered with the stored response of an earlier attempt."""
        return str(self.headers.get(REPLAY_HEADER, "")).lower() == "true"

    @property
    def request_id(self) -> str | None:
        found = self.headers.get("x-request-id")
        return None if found is None else str(found)

    def model(self, cls: type[ModelT]) -> ModelT:
        return cls.model_validate_json(self.content)


@dataclass
class Page:
    """One page of a list: its items and the list's ``meta`` (``total``, ``page``...)."""

    items: list[Any]
    page: int
    per_page: int
    total: int | None
    response: Response

    @property
    def is_last(self) -> bool:
        if not self.items:
            return True
        if self.total is not None:
            return self.page * self.per_page >= self.total
        return len(self.items) < self.per_page


@dataclass
class _Call:
    method: str
    target: str  # path plus ?query, relative to base_url
    body: Any  # the parsed JSON that is sent and signed (None: no body)
    content: bytes | None
    headers: dict[str, str]
    key: str | None
    retryable: bool
    credentials: Credentials | None
    attempt: int = field(default=0)
    resigned: bool = field(default=False)


def _to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


class ClientOptions(TypedDict, total=False):
    """The options both clients take (besides their own ``transport``)."""

    retry: RetryPolicy | None  # default: RetryPolicy()
    timeout: float  # seconds; default 10
    headers: Mapping[str, str] | None  # sent with every call


class _Base:
    def __init__(
        self, base_url: str, credentials: Credentials | None, options: ClientOptions
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.credentials = credentials
        self.retry = options.get("retry") or RetryPolicy()
        self.timeout = options.get("timeout", 10.0)
        self.default_headers = {"Accept": "application/json", "User-Agent": "mccgw-client/0.1"}
        self.default_headers.update(options.get("headers") or {})
        self._deprecated_seen: set[str] = set()  # operations already warned of

    # -- preparing one logical call -------------------------------------------------------
    def _prepare(
        self,
        method: str,
        path: str,
        *,
        params: Params = None,
        json: Any = None,
        idempotency_key: str | NoKey | None = None,
        headers: Mapping[str, str] | None = None,
        credentials: Credentials | None = None,
    ) -> _Call:
        method = method.upper()
        body = _to_json(json)
        key: str | None = None
        if method in WRITE_METHODS and idempotency_key is not False:
            if body is None:
                body = {}
            if isinstance(body, dict):
                present = body.get("idempotency_key")
                if present and idempotency_key and present != idempotency_key:
                    raise ValueError("idempotency_key differs from the body's idempotency_key")
                # In the body, never as a header: there the HMAC signature covers it.
                key = str(present or idempotency_key or new_idempotency_key())
                body = {**body, "idempotency_key": key}
        query = urlencode([(k, v) for k, v in (params or {}).items() if v is not None], doseq=True)
        if not path.startswith("/"):
            path = "/" + path
        target = path + (("&" if "?" in path else "?") + query if query else "")
        call_headers = dict(self.default_headers)
        content = None
        if body is not None:
            content = canonical_json(body).encode()
            call_headers["Content-Type"] = "application/json"
        call_headers.update(headers or {})
        return _Call(
            method=method,
            target=target,
            body=body,
            content=content,
            headers=call_headers,
            key=key,
            retryable=method not in WRITE_METHODS or key is not None,
            credentials=credentials or self.credentials,
        )

    def _build(self, http: httpx.Client | httpx.AsyncClient, call: _Call) -> httpx.Request:
        call.attempt += 1
        request = http.build_request(
            call.method, self.base_url + call.target, content=call.content, headers=call.headers
        )
        if call.credentials is not None:
            # Sign what is actually sent: the target as httpx encoded it.
            target = request.url.raw_path.decode("ascii")
            request.headers.update(call.credentials.headers(call.method, target, call.body))
        return request

    # -- deciding after an attempt ---------------------------------------------------------
    def _retry_delay(self, call: _Call, response: httpx.Response | None) -> float | None:
        """Seconds to wait before the next attempt, or None to stop here."""
        policy = self.retry
        if not call.retryable or call.attempt >= policy.max_attempts:
            return None
        if response is None:  # no answer: the write may or may not have happened; the key
            return policy.delay(call.attempt, None)  # makes the retry safe either way
        status = response.status_code
        if status == 401 and self._same_second_replay(call, response):
            call.resigned = True  # once: a wrong secret fails again and is raised
            return 1.0 - (time.time() % 1.0) + 0.01  # sign again in the next second
        if status not in policy.statuses:
            if status != 409 or not policy.slugs:
                return None
            if slug_of(_json_or_empty(response), status) not in policy.slugs:
                return None
        after = retry_after_seconds(response.headers)
        if after is not None and after > policy.max_retry_after:
            return None
        return policy.delay(call.attempt, after)

    def _outcome(
        self, call: _Call, answer: httpx.Response | httpx.TransportError
    ) -> Response | float:
        """After one attempt (the answer, or the transport error when none came): the final
        Response, or the seconds to wait before the next attempt. Problems are raised."""
        response = answer if isinstance(answer, httpx.Response) else None
        delay = self._retry_delay(call, response)
        if delay is None:
            if isinstance(answer, httpx.TransportError):
                raise TransportError(f"{call.method} {call.target}: {answer!r}") from answer
            return self._finish(call, answer)
        self._log_retry(
            call, repr(answer) if response is None else str(response.status_code), delay
        )
        return delay

    @staticmethod
    def _same_second_replay(call: _Call, response: httpx.Response) -> bool:
        """The gateway takes a write's signature once. Another client (another process) that
        sent this very write (same key, body, path) in the same second made the same signature,
        so ours is refused as a replay: signing again in the next second gets the answer."""
        return (
            isinstance(call.credentials, HmacAuth)
            and not call.resigned
            and slug_of(_json_or_empty(response), 401) == "invalid-signature"
        )

    def _finish(self, call: _Call, response: httpx.Response) -> Response:
        self._warn_if_deprecated(call, response.headers)
        if response.status_code >= 400:
            raise problem_from(
                response.status_code, _json_or_empty(response), dict(response.headers)
            )
        return Response(
            response.status_code, response.headers, response.content, call.attempt, call.key
        )

    def _warn_if_deprecated(self, call: _Call, headers: httpx.Headers) -> None:
        """Once per operation (method and path) and client: a DeprecatedOperationWarning and a
        log line, when the answer carries ``Deprecation``."""
        if "deprecation" not in headers:
            return
        operation = f"{call.method} {call.target.split('?', 1)[0]}"
        if operation in self._deprecated_seen:
            return
        self._deprecated_seen.add(operation)
        sunset = headers.get("sunset")
        successor = headers.get("link", "")
        message = f"mccgw: {operation} is deprecated" + (f"; sunset {sunset}" if sunset else "")
        if "successor-version" in successor:
            message += f"; successor {successor.split(';', 1)[0].strip('<> ')}"
        log.warning("%s", message)
        warnings.warn(message, DeprecatedOperationWarning, stacklevel=2)

    def _log_retry(self, call: _Call, what: str, delay: float) -> None:
        log.info(
            "mccgw %s %s attempt %d: %s; retrying in %.2fs (idempotency_key=%s)",
            call.method, call.target, call.attempt, what, delay, call.key,
        )  # fmt: skip

    def _prepare_operation(self, op: Operation[Any], options: OperationOptions) -> _Call:
        body = options.get("body")
        if op.request is not None and isinstance(body, Mapping):
            body = op.request.model_validate(body)  # checks the body before sending it
        return self._prepare(
            op.method,
            op.target(dict(options.get("path_params") or {})),
            params=options.get("params"),
            json=body,
            idempotency_key=options.get("idempotency_key"),
        )


def _json_or_empty(response: httpx.Response) -> dict[str, Any]:
    try:
        parsed = response.json()
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _parse(op: Operation[ResponseT], response: Response) -> ResponseT:
    model = op.response_for(response.status_code)
    if model is None:
        return cast(ResponseT, response.body)
    return cast(ResponseT, model.model_validate_json(response.content))


def _page(response: Response, page: int, per_page: int) -> Page:
    items = response.data if isinstance(response.data, list) else []
    total = response.meta.get("total")
    return Page(items, page, per_page, total if isinstance(total, int) else None, response)
