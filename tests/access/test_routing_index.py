"""The route index (api.routing) picks, for every route of the app, exactly the route that
FastAPI's own router picks, with the same path parameters; and it leaves to FastAPI every
request it cannot decide (no match, wrong method, mounts, the console)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi import routing as fr
from starlette.convertors import IntegerConvertor, PathConvertor
from starlette.routing import Match

from api.routing import RouteIndex
from core.config import Settings
from tests.access.conftest import build_app


@pytest.fixture(scope="module")
def built(settings: Settings) -> FastAPI:
    return build_app(settings)  # routes only: no lifespan needed to match


def _scope(app: FastAPI, method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "root_path": "", "app": app,
            "headers": [], "query_string": b""}  # fmt: skip


def _fastapi_choice(app: FastAPI, scope: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    """What FastAPI's router selects: the first full match, descending included routers."""
    for top in app.router.routes:
        match, child = top.matches(scope)
        if match is not Match.FULL:
            continue
        route: Any = top
        context = None
        while isinstance(route, fr._IncludedRouter):
            match, child, route, context = route._match(scope)
            assert match is Match.FULL
        chosen = context.original_route if context is not None else route
        return chosen, dict(child.get("path_params", {}))
    return None


def _sample(template: str, convertors: dict[str, Any]) -> str:
    def fill(m: re.Match[str]) -> str:
        convertor = convertors.get(m.group(1))
        if isinstance(convertor, IntegerConvertor):
            return "7"
        if isinstance(convertor, PathConvertor):
            return "a/b.png"
        return "Xy1"

    return re.sub(r"{(\w+)(?::\w+)?}", fill, template)


def _paths(app: FastAPI, index: RouteIndex) -> list[tuple[str, str]]:
    out = []
    for entry in index.entries():
        source = entry.context if entry.context is not None else entry.route
        template = getattr(source, "path_format", None)
        if template is None:
            continue
        path = _sample(template, getattr(source, "param_convertors", {}))
        for method in sorted(getattr(source, "methods", None) or {"GET"}):
            out.append((method, path))
    return out


def test_every_route_resolves_as_fastapi_resolves_it(built: FastAPI) -> None:
    index = built.router.middleware_stack
    assert isinstance(index, RouteIndex)
    cases = _paths(built, index)
    cases += [
        ("GET", "/nowhere"), ("GET", "/v1/mcd/balance/"), ("DELETE", "/v1/mcd/balance"),
        ("GET", "/console"), ("GET", "/console/x"), ("GET", "/media/avatars/a.png"),
        ("GET", "/docs"), ("GET", "/openapi.json"), ("PATCH", "/v1/tech-tree/bonus"),
    ]  # fmt: skip
    assert len(cases) > 150
    taken = 0
    for method, path in cases:
        expected = _fastapi_choice(built, _scope(built, method, path))
        found = index.find(_scope(built, method, path))
        if found is None:
            # Left to FastAPI: fine, as long as FastAPI would not pick an API route first.
            assert (
                expected is None
                or not isinstance(expected[0], fr.APIRoute)
                or any(
                    not isinstance(e.route, fr.APIRoute) and path.startswith(e.prefix)
                    for e in index.entries()
                )
            ), (method, path)
            continue
        entry, child = found
        assert expected is not None, (method, path)
        assert entry.route is expected[0], (method, path, entry.route, expected[0])
        assert child["path_params"] == expected[1], (method, path)
        taken += 1
    assert taken > 100  # the index does serve the API's routes


async def test_requests_through_the_index(client: Any) -> None:
    """Served end to end: a plain route, a path parameter, a 405 and a 404 (FastAPI's)."""
    assert (await client.get("/v1/_probe/bare")).json() == {"ok": "yes"}
    assert (await client.get("/healthz")).status_code == 200
    assert (await client.delete("/healthz")).status_code == 405
    missing = await client.get("/v1/no-such-route")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")


def test_a_route_added_later_is_found(built: FastAPI) -> None:
    """Routes added after the index was built (at any depth) are served: at once by FastAPI's
    router, and by the index once it has seen the tree's new version."""
    index = built.router.middleware_stack
    assert isinstance(index, RouteIndex)
    late = fr.APIRouter()

    @late.get("/v1/_late/one")
    async def one() -> dict[str, str]:
        return {}

    built.include_router(late)  # the app's own routes changed: seen at once
    found = index.find(_scope(built, "GET", "/v1/_late/one"))
    assert found is not None and found[0].route.endpoint is one

    @late.get("/v1/_late/two")  # a nested change: FastAPI serves it until the index sees it
    async def two() -> dict[str, str]:
        return {}

    scope = _scope(built, "GET", "/v1/_late/two")
    expected = _fastapi_choice(built, scope)
    assert expected is not None and expected[0].endpoint is two
    found = index.find(_scope(built, "GET", "/v1/_late/two"))
    assert found is None or found[0].route is expected[0]
    index._recheck_at = 0.0  # (re-read at most once a second)
    found = index.find(_scope(built, "GET", "/v1/_late/two"))
    assert found is not None and found[0].route is expected[0]
