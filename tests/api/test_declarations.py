"""Every operation says who may call it (issue 38): one ``Callers`` declaration per route, which
the route enforces and the OpenAPI document carries as ``x-callers``; docs/security.md's table
is generated from it. The audience rule itself is checked against every caller kind by the
authorization matrix (tests/access/test_matrix.py); here, what needs no running service.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import APIRouter, Depends, FastAPI

from access.callers import (
    Accept,
    Bearer,
    Declaration,
    Kind,
    Refusal,
    admin,
    admit,
    anyone,
    developer,
    id_token,
    project,
    user,
)
from api.app import create_app
from api.auth.declaration import declarations
from api.callers import PUBLIC
from core.config import Settings
from mccgw.callers_table import DOC, rewritten


@pytest.fixture(scope="module")
def app() -> FastAPI:
    return create_app(Settings(environment="test"))


def test_every_operation_declares_its_callers(app: FastAPI) -> None:
    document = app.openapi()
    missing = [f"{m} {p}" for m, p, d in declarations(app) if d is None]
    assert not missing, f"routes that do not say who may call them: {missing}"
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert operation.get("x-callers"), f"{method.upper()} {path}"


def test_a_route_without_a_declaration_is_found() -> None:
    undeclared, twice = APIRouter(), APIRouter()

    @undeclared.get("/v1/_undeclared")
    async def nobody_said() -> dict[str, str]:
        return {}

    @twice.get("/v1/_twice", dependencies=[Depends(PUBLIC), Depends(Declaration(user()))])
    async def said_twice() -> dict[str, str]:
        return {}

    probe = create_app(Settings(environment="test"))
    probe.include_router(undeclared)
    found = {(m, p): d for m, p, d in declarations(probe)}
    assert found[("GET", "/v1/_undeclared")] is None
    probe.include_router(twice)
    with pytest.raises(ValueError, match="twice"):
        list(declarations(probe))


def test_docs_security_carries_the_routes_declarations(app: FastAPI) -> None:
    text = DOC.read_text()
    assert text == rewritten(text, app.openapi()), (
        "docs/security.md's callers table differs from the routes: run `make docs-callers`"
    )


def test_owner_operations_take_only_the_gateways_own_sign_in(app: FastAPI) -> None:
    """Issue 38, H1: secret rolls, OAuth client settings and redirect URIs of a project."""
    paths = app.openapi()["paths"]
    for path, method in (
        ("/v1/projects/{project_id}/api-secret/roll", "post"),
        ("/v1/projects/{project_id}/oauth-client", "put"),
        ("/v1/projects/{project_id}/oauth-client/secret/roll", "post"),
        # The 1.0.0 paths, deprecated until their sunset: the owner's token too, never the key.
        ("/v1/projects/oauth-client", "put"),
        ("/v1/projects/oauth-client/secret/roll", "post"),
    ):
        assert paths[path][method]["x-callers"] == [{"kind": "developer"}], path


def _bearer(**given: Any) -> Bearer:
    facts: dict[str, Any] = {
        "id_token": False,
        "first_party": False,
        "role": "user",
        "scopes": frozenset(),
    }
    return Bearer(**(facts | given))


def test_the_rule_refuses_with_the_reason_that_explains_best() -> None:
    now = 1_800_000_000.0
    own = _bearer(first_party=True, scopes=frozenset({"openid"}), auth_time=int(now) - 30)
    granted = _bearer(id_token=True, granted=frozenset({"mcc:read"}))
    their_admin = _bearer(role="admin", scopes=frozenset({"user:read"}))
    cases: list[tuple[list[Accept], Bearer, str | Kind]] = [
        ([developer()], own, Kind.DEVELOPER),
        ([developer()], _bearer(id_token=True), "first-party-required"),
        ([admin()], own, "admin-required"),
        ([admin()], their_admin, "admin-required"),
        ([admin()], _bearer(role="admin", first_party=True), Kind.ADMIN),
        ([user("user:read")], their_admin, Kind.USER),
        ([user("user:write")], their_admin, "insufficient-scope"),
        ([user("user:read")], _bearer(id_token=True), "unauthorized"),
        ([id_token("mcc:read")], _bearer(id_token=True), "insufficient-scope"),
        ([id_token("mcc:read")], granted, Kind.ID_TOKEN),
        ([id_token("mcc:read")], _bearer(id_token=True, first_party=True), Kind.ID_TOKEN),
        ([developer(fresh_seconds=60)], own, Kind.DEVELOPER),
        ([developer(fresh_seconds=10)], own, "fresh-sign-in-required"),
        ([developer(fresh_seconds=10)], _bearer(first_party=True), "fresh-sign-in-required"),
    ]  # fmt: skip
    for accepts, bearer, expected in cases:
        decided = admit(accepts, bearer, now)
        got = decided.slug if isinstance(decided, Refusal) else decided.kind
        assert got == expected, (accepts, bearer, decided)


def test_a_declaration_is_well_formed() -> None:
    with pytest.raises(ValueError):
        Declaration()
    with pytest.raises(ValueError):
        Declaration(anyone(), user())
    with pytest.raises(ValueError):
        Declaration(user("a"), user("b"))
    assert Declaration(user("mining:read"), project("mining:read")).describe() == [
        {"kind": "user", "scopes": ["mining:read"]},
        {"kind": "project", "scopes": ["mining:read"]},
    ]
