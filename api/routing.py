"""A flat index of the app's routes, so a request finds its route in one pass.

Why: FastAPI 0.165 matches an included router by walking every router it includes, and walks
the same tree again to hand the request on (once per level: ``matches``, then
``_handle_selected``). With ~30 routers under one ``api_router`` that was about 40 % of the
API's CPU per request (docs/performance.md). This index flattens the same tree once, in the
same order, and skips every route whose literal path prefix cannot match.

It only ever takes the one case it can decide exactly: the first route, in FastAPI's own
order, that fully matches (path and method) is a FastAPI route. Anything else (no match, a
405, a redirect for a trailing slash, a mount, the console, a static file) goes to FastAPI's
router unchanged. The request is then handed to that route exactly as FastAPI's
``_IncludedRouter._handle_selected`` does (the same scope keys, the same route objects), so
dependencies, body limits and telemetry see no difference. FastAPI is pinned; the test
``tests/access/test_routing_index.py`` checks every route against FastAPI's own choice.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi import routing as fr
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_typed_return_annotation
from fastapi.telemetry._api import _get_request_telemetry
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from api.ratelimit import checks_credentials, limit_unauthenticated


@dataclass(frozen=True, slots=True)
class _Entry:
    prefix: str  # the literal start of the path template: no match without it
    # None: something FastAPI must decide itself (a mount, a static file, a frontend group)
    context: Any
    route: Any  # the APIRoute, or the route itself when it is opaque
    chain: tuple[Any, ...]  # the included routers above the route, outermost first


def _literal(path: str | None) -> str:
    return "" if path is None else path.split("{", 1)[0]


def _flatten(routes: list[Any], chain: tuple[Any, ...], out: list[_Entry]) -> None:
    for route in routes:
        if isinstance(route, fr._IncludedRouter):
            _walk(route, (*chain, route), out)
        elif isinstance(route, fr.APIRoute):
            out.append(_Entry(_literal(route.path_format), None, route, chain))
        else:  # mounts, plain starlette routes: opaque
            out.append(_Entry(_literal(getattr(route, "path_format", None)), None, route, ()))


def _walk(included: Any, chain: tuple[Any, ...], out: list[_Entry]) -> None:
    for candidate in included.effective_candidates():
        if isinstance(candidate, fr._IncludedRouter):
            _walk(candidate, (*chain, candidate), out)
        elif isinstance(candidate.original_route, fr.APIRoute):
            prefix = _literal(candidate.path_format)
            out.append(_Entry(prefix, candidate, candidate.original_route, chain))
        else:
            path = getattr(candidate.starlette_route, "path_format", None)
            out.append(_Entry(_literal(path), None, candidate, ()))


class RouteIndex:
    """The app router's entry point: the index first, FastAPI's router for the rest."""

    def __init__(self, router: fr.APIRouter) -> None:
        self.router = router
        self.fallback: ASGIApp = router.app
        self._entries: list[_Entry] | None = None
        self._top: tuple[int, int] = (0, 0)
        self._version = 0
        self._recheck_at = 0.0

    def entries(self) -> list[_Entry]:
        # Routes added to the app itself are seen at once; the whole tree's version (a walk of
        # every router, ~10 µs) is read at most once a second.
        top = (len(self.router.routes), self.router._routes_version)
        now = time.monotonic()
        if self._entries is not None and top == self._top and now < self._recheck_at:
            return self._entries
        self._recheck_at = now + 1.0
        version = self.router._get_routes_version()
        if self._entries is None or top != self._top or version != self._version:
            entries: list[_Entry] = []
            _flatten(list(self.router.routes), (), entries)
            self._entries, self._top, self._version = entries, top, version
        return self._entries

    def find(self, scope: Scope) -> tuple[_Entry, Scope] | None:
        """The first route that fully matches, if FastAPI's router would pick it too."""
        path = scope["path"] if not scope.get("root_path") else fr.get_route_path(scope)
        for entry in self.entries():
            if not path.startswith(entry.prefix):
                continue
            if entry.context is None and not isinstance(entry.route, fr.APIRoute):
                return None  # an opaque route could take it: FastAPI decides
            if entry.context is not None:
                match, child = entry.context.matches(scope)
                if match is Match.FULL:
                    child["route"] = entry.route
                    return entry, child
            else:
                match, child = entry.route.matches(scope)
                if match is Match.FULL:
                    return entry, child
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = self.find(scope) if scope["type"] == "http" else None
        if found is None:
            await self.fallback(scope, receive, send)
            return
        entry, child = found
        # What APIRouter.app, _IncludedRouter.handle and _handle_selected do on the way down.
        fr._apply_router_form_limits(scope, self.router.form_limits)
        scope.setdefault("router", self.router)
        fastapi_scope = fr._get_fastapi_scope(scope)
        for included in entry.chain:
            fr._apply_router_form_limits(scope, included.include_context.form_limits)
            fastapi_scope[fr._FASTAPI_INCLUDED_ROUTER_KEY] = included
        fr._update_scope(scope, child)
        context = entry.context
        if context is None:  # an APIRoute added to the app itself
            fr._route_selected(scope=scope, path=entry.route.path_format)
            await entry.route.handle(scope, receive, send)
            return
        path = getattr(context.starlette_route, "path_format", None) or context.path_format
        fr._route_selected(scope=scope, path=path)
        fastapi_scope[fr._FASTAPI_EFFECTIVE_ROUTE_CONTEXT_KEY] = context
        scope["route"] = entry.route
        await entry.route.handle(scope, receive, send)


def install_route_index(app: FastAPI) -> RouteIndex | None:
    """Put the index in front of the app's router: the router's own entry point (the app's
    middlewares stay outside). Not when the router wraps itself in middleware of its own."""
    if app.router.middleware_stack != app.router.app:
        return None
    index = RouteIndex(app.router)
    app.router.middleware_stack = index
    return index


# ------------------------------------------------------------------ lighter dependency solving


def _light(dependant: Dependant) -> Dependant:
    """The dependency tree a request solves: each dependency that can read its own credentials
    (``read_credentials``, ``api.auth.declaration.Callers``) is one dependency instead of one
    per security scheme under it. FastAPI solves every node of the tree for every request (a
    tenth of an authenticated read's CPU per node); the schemes are pure header reads."""
    read_credentials = getattr(dependant.call, "read_credentials", None)
    if read_credentials is not None and dependant.security_scopes_param_name is None:
        return replace(dependant, call=read_credentials, dependencies=[])
    subs = [_light(sub) for sub in dependant.dependencies]
    if all(a is b for a, b in zip(subs, dependant.dependencies, strict=True)):
        return dependant
    return replace(dependant, dependencies=subs)


class LightRoute(fr.APIRoute):
    """A route (``APIRouter(route_class=LightRoute)``) whose requests solve the lighter tree
    (``_light``), without the app's ``limit_unauthenticated`` when the route checks
    credentials itself (it does nothing then). Its ``dependant``, which the OpenAPI document,
    the declarations and the rate limit's credential check read, stays the declared one: only
    the request handler, built once per route and inclusion, is given the other."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        effective = fr._effective_route_context_var.get()
        owner: Any = (
            effective if effective is not None and effective.original_route is self else self
        )
        declared = owner.dependant
        light = _light(declared)
        if checks_credentials(self):  # what limit_unauthenticated asks, of the same route
            kept = [d for d in light.dependencies if d.call is not limit_unauthenticated]
            light = replace(light, dependencies=kept)
        owner.dependant = light
        try:
            solved = super().get_route_handler()
        finally:
            owner.dependant = declared
        return _direct(light, owner, solved) or solved


# ------------------------------------------------------------------ the caller, solved directly


def _caller_only(dependant: Dependant) -> tuple[Callable[..., Any], str] | None:
    """(the caller's check, its parameter's name) when the light tree is exactly a coroutine
    endpoint taking one ``Callers`` check (which reads its own credentials off the request)
    and, at most, the request: nothing else for FastAPI to read, validate or close."""
    plain = (
        "path_params", "query_params", "header_params", "cookie_params", "body_params",
        "websocket_param_name", "http_connection_param_name", "response_param_name",
        "background_tasks_param_name", "security_scopes_param_name",
    )  # fmt: skip
    if any(getattr(dependant, name) for name in plain) or len(dependant.dependencies) != 1:
        return None
    if not inspect.iscoroutinefunction(dependant.call):
        return None
    (caller,) = dependant.dependencies
    check: Callable[..., Any] | None = caller.call
    owner = getattr(check, "__self__", None)
    reads_its_own = owner is not None and check is getattr(owner, "read_credentials", None)
    if (
        check is None
        or not reads_its_own
        or caller.name is None
        or caller.dependencies
        or caller.request_param_name != "request"
        or caller.concurrency is not None
        or any(getattr(caller, name) for name in plain)
    ):
        return None
    return check, caller.name


def _direct(
    light: Dependant, route: Any, solved: Callable[[Request], Coroutine[Any, Any, Response]]
) -> Callable[[Request], Coroutine[Any, Any, Response]] | None:
    """A request handler that runs the caller's check and then the endpoint, without FastAPI's
    ``solve_dependencies`` (its per-request cache, sub-response, parameter passes and the
    callable's classification: about a tenth of ``/bench/auth``'s samples, pass six), for a
    route ``_caller_only`` accepts whose endpoint answers a ``Response`` itself. What FastAPI
    would do differently goes to its handler (``solved``): telemetry recording the request,
    dependency overrides, an endpoint that returns anything but a ``Response``."""
    found = _caller_only(light)
    if found is None or route.body_field is not None:
        return None
    check, name = found
    endpoint = light.call
    assert endpoint is not None
    request_name = light.request_param_name
    overrides = route.dependency_overrides_provider
    generic = solved

    async def handler(request: Request) -> Response:
        if _get_request_telemetry() is not None or (
            overrides is not None and getattr(overrides, "dependency_overrides", None)
        ):
            return await generic(request)
        values = {name: await check(request=request)}
        if request_name is not None:
            values[request_name] = request
        answer = await endpoint(**values)
        if not isinstance(answer, Response):
            raise TypeError(f"{route.path} answered {type(answer).__name__}, not a Response")
        return answer

    returns = get_typed_return_annotation(endpoint)
    if not (isinstance(returns, type) and issubclass(returns, Response)):
        return None
    return handler
