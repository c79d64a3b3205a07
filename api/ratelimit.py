"""The API's side of rate limiting (the windows themselves are ``access.ratelimit``).

The middleware puts ``X-RateLimit-*`` on every response and limits anonymous calls by IP;
authenticated calls are limited by the auth dependencies once the subject is known.

No header lets a caller out of counting: a request that carries credentials is counted against
its principal when an auth dependency verifies them, and otherwise against its IP, refused up
front on routes that check no credentials (``limit_unauthenticated``, an app dependency) and
at the answer for anything else that ends in an error (404, 405, 415...). Failed logins at the
authorization server are throttled per account and source on top (``access.login``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from access.ratelimit import (
    ANONYMOUS_LIMIT,
    RateLimiter,
    RateResult,
    Revoked,
    Ride,
    ip_key,
)
from api.asgi import RATE_SLOT, HttpMiddleware, problem_body, send_problem
from api.middleware import RequestContextMiddleware
from core.errors import DomainError

log = logging.getLogger("mccgw.ratelimit")

EXEMPT_PREFIXES: tuple[str, ...] = (
    "/healthz",
    "/readyz",
    "/metrics",
    "/docs",
    "/redoc",
    "/openapi.json",
    "/auth/.well-known/",
)
# The operator console counts every request against its own per-IP budget, whatever headers
# it carries: its progress fragments poll once a second, which must not eat the API's
# anonymous budget, yet nothing there is unlimited (sign-in itself is limited at /auth).
CONSOLE_PREFIX = "/console"
CONSOLE_LIMIT = 600
SCOPE_KEY = RATE_SLOT
# Set on the ASGI scope of the process's own calls to itself (``in_process``): no outside
# request can carry it, since it is never read from the wire.
INTERNAL_KEY = "mccgw.internal"


class _Slot:
    """Per-request holder the dependencies fill in and the request context's one ``send``
    wrapper reads (``api.asgi.AnswerStart``): the rate-limit headers on every answer."""

    __slots__ = ("_owner", "_receive", "_scope", "headers", "late", "result", "ride", "ride_uid")

    def __init__(self, owner: RateLimitMiddleware, scope: Scope, receive: Receive) -> None:
        self.result: RateResult | None = None
        self.headers = True  # False: the answer carries no rate-limit headers
        # Not counted yet when the answer starts: credentials were sent, no auth dependency ran.
        self.late = True
        self._owner, self._scope, self._receive = owner, scope, receive
        self.ride: Ride | None = None  # the route's read, sent with the count (``rides``)
        self.ride_uid: str | None = None

    def pending(self) -> bool:
        return self.headers and self.late and self.result is None

    async def start(self, message: Message, send: Send) -> bool:
        """Count the request against its IP now; an error answer over the budget is replaced
        by the 429 (True: the app's answer is dropped)."""
        self.late = False
        scope = self._scope
        with contextlib.suppress(RedisError):  # the answer goes out regardless
            self.result = await _limiter(scope).hit(ip_key(scope), ANONYMOUS_LIMIT)
        if self.result and not self.result.allowed and message["status"] >= 400:
            # An error answer (404, 405, 415, ...): nothing was done, so the caller over its
            # IP budget gets the 429 instead.
            await self._owner._deny(scope, self._receive, send)
            return True
        return False

    def add(self, headers: list[tuple[bytes, bytes]]) -> None:
        if not self.headers or self.result is None:
            return
        present = {k.lower() for k, _ in headers}
        for name, value in self.result.raw_headers():
            if name not in present:
                headers.append((name, value))


def in_process(app: ASGIApp) -> ASGIApp:
    """The app as the process's own calls reach it (the token check's introspection and the
    console's code exchange with the in-process authorization server, over
    ``httpx.ASGITransport``): never counted against anyone's budget. The outside request that
    caused them is counted, before them (issue 38, M1)."""

    async def internal(scope: Scope, receive: Receive, send: Send) -> None:
        await app({**scope, INTERNAL_KEY: True}, receive, send)

    return internal


def _limiter(scope: Scope) -> RateLimiter:
    limiter: RateLimiter = scope["app"].state.rate_limiter
    return limiter


RideOf = Callable[[str], Ride]
_Endpoint = TypeVar("_Endpoint", bound=Callable[..., Any])


def rides(ride_of: RideOf) -> Callable[[_Endpoint], _Endpoint]:
    """A route's decorator: its own Redis read (``ride_of(uid)``, a script's) goes in the round
    trip that counts its caller, a user's revocable token (``enforce``), and the route takes
    the reply with ``ridden`` (one round trip instead of two; without a reply it reads alone)."""

    def mark(endpoint: _Endpoint) -> _Endpoint:
        endpoint.ride_of = ride_of  # type: ignore[attr-defined]
        return endpoint

    return mark


def ride_for(request: Request, uid: str) -> Ride | None:
    """The read the route asks to send with its caller's count (``rides``), for ``uid``."""
    ride_of: RideOf | None = getattr(
        getattr(request.scope.get("route"), "endpoint", None), "ride_of", None
    )
    slot: _Slot | None = request.scope.get(SCOPE_KEY)
    if ride_of is None or slot is None or slot.result is not None:
        return None
    slot.ride, slot.ride_uid = ride_of(uid), uid
    return slot.ride


def ridden(request: Request, uid: str) -> Ride | None:
    """The route's read as it came back with its caller's count, if it did (for ``uid``)."""
    slot: _Slot | None = request.scope.get(SCOPE_KEY)
    if slot is None or slot.ride is None or not slot.ride.read or slot.ride_uid != uid:
        return None
    return slot.ride


async def enforce(
    request: Request,
    key: str,
    limit: int,
    revoked_key: str | None = None,
    ride: Ride | None = None,
) -> RateResult:
    """Count one hit for ``key``; raise 429 when over the limit. Called once per request.
    With ``revoked_key`` (a bearer token's revocation marker), the same round trip checks
    it: a revoked token is counted against the IP instead and raises ``Revoked``; ``ride``
    (``ride_for``) rides in that round trip too."""
    slot: _Slot | None = request.scope.get(SCOPE_KEY)
    if slot is not None and slot.result is not None:
        # Already counted (e.g. a route with two auth dependencies): the revocation still
        # is checked.
        if revoked_key is not None and await _limiter(request.scope).revoked(revoked_key):
            raise Revoked
        return slot.result
    revoked = False
    if revoked_key is None:
        result = await _limiter(request.scope).hit(key, limit)
    else:
        revoked, result = await _limiter(request.scope).hit_unless_revoked(
            key, limit, revoked_key, ip_key(request.scope), ANONYMOUS_LIMIT, ride
        )
        limit = result.limit
    if slot is not None:
        slot.result = result
    if revoked and result.allowed:
        raise Revoked
    if not result.allowed:
        raise DomainError(
            f"Rate limit of {limit} requests per minute exceeded; retry in {result.retry_after} s",
            status=429,
            slug="rate-limit-exceeded",
            retry_after=result.retry_after,
        )
    return result


async def enforce_ip(request: Request) -> RateResult:
    """Failed authentication counts against the caller's IP."""
    return await enforce(request, ip_key(request.scope), ANONYMOUS_LIMIT)


_CREDENTIAL_HEADERS = (b"authorization", b"x-project-id", b"x-api-key", b"x-signature")
AUTH_SCHEMES: set[object] = set()  # filled by api.auth.deps: the security scheme objects
_route_checks: dict[int, bool] = {}


def _has_credentials(scope: Scope) -> bool:
    return any(name in _CREDENTIAL_HEADERS for name, _ in scope.get("headers", ()))


def checks_credentials(route: object) -> bool:
    """Whether a route's dependencies read credentials (and so count the request themselves,
    against the principal once verified, against the IP when not)."""
    cached = _route_checks.get(id(route))
    if cached is not None:
        return cached
    stack, found = [getattr(route, "dependant", None)], False
    while stack and not found:
        dependant = stack.pop()
        if dependant is None:
            continue
        found = dependant.call in AUTH_SCHEMES
        stack.extend(dependant.dependencies)
    _route_checks[id(route)] = found
    return found


async def limit_unauthenticated(request: Request) -> None:
    """App-wide dependency: a request that sends credentials to a route that checks none is
    counted and refused against its IP, like an anonymous one (a header is no way out)."""
    slot: _Slot | None = request.scope.get(SCOPE_KEY)
    if slot is None or slot.result is not None:
        return  # exempt path, or already counted
    if not checks_credentials(request.scope.get("route")):
        await enforce_ip(request)


class RateLimitMiddleware(HttpMiddleware):
    """Outermost: headers on every response; anonymous calls limited by IP up front."""

    def __init__(self, app: ASGIApp, base_url: str) -> None:
        super().__init__(app, base_url)
        # Our own 429 still goes through the request-context layer (X-Request-ID, log, metrics).
        self._deny = RequestContextMiddleware(self._too_many, base_url)
        self._down = RequestContextMiddleware(self._unavailable, base_url)

    # Its own __call__: the exempt paths pass through with the other scopes, in one test.
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        exempt = path.startswith(EXEMPT_PREFIXES) or scope.get(INTERNAL_KEY) is True
        if scope["type"] != "http" or exempt:
            await self.app(scope, receive, send)
            return
        slot = _Slot(self, scope, receive)
        scope[SCOPE_KEY] = slot
        if path == CONSOLE_PREFIX or path.startswith(CONSOLE_PREFIX + "/"):
            await self._console(scope, receive, send, slot)
            return
        if not _has_credentials(scope):
            try:
                slot.result = await _limiter(scope).hit(ip_key(scope), ANONYMOUS_LIMIT)
            except RedisError as exc:  # outside the app's exception handlers: answer here
                log.warning("redis unavailable: %r", exc)
                slot.headers = False
                await self._down(scope, receive, send)
                return
        # No wrapper of ``send`` here: the request context's adds the headers (``_Slot``).
        if slot.result is not None and not slot.result.allowed:
            await self._deny(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _console(self, scope: Scope, receive: Receive, send: Send, slot: _Slot) -> None:
        """The console's own per-IP window, counted up front for every request; only its 429
        carries the rate-limit headers."""
        try:
            slot.result = await _limiter(scope).hit(ip_key(scope, "console:"), CONSOLE_LIMIT)
        except RedisError as exc:
            log.warning("redis unavailable: %r", exc)
            slot.headers = False
            await self._down(scope, receive, send)
            return
        if not slot.result.allowed:
            await self._deny(scope, receive, send)
            return
        slot.headers = False
        await self.app(scope, receive, send)

    async def _unavailable(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = (
            "A backing service (Redis) is unavailable or saturated; nothing was written. "
            "Retry the request."
        )
        body = problem_body(self.base_url, scope, 503, "service-unavailable", detail)
        await send_problem(send, body, [(b"retry-after", b"1")])

    async def _too_many(self, scope: Scope, receive: Receive, send: Send) -> None:
        r: RateResult = scope[SCOPE_KEY].result
        detail = f"Rate limit of {r.limit} requests per minute exceeded; retry in {r.retry_after} s"
        body = problem_body(self.base_url, scope, 429, "rate-limit-exceeded", detail)
        # Retry-After comes with the rate headers.
        await send_problem(send, body | {"retry_after": r.retry_after})
