"""The OpenAPI document describes every answer (issue 12, item 4): each operation has a typed
2xx body and documents its errors as RFC 7807 problems; no path of the API ever disappears.

Built from the app alone (no lifespan): the document needs no running service.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from core.config import Settings

METHODS = ("get", "put", "post", "patch", "delete", "head", "options")
PROBLEM_REF = "#/components/schemas/Problem"
LEGACY_REF = "#/components/schemas/LegacyError"
OAUTH_REF = "#/components/schemas/OAuthError"
# Today's operations, generated from the app before the typed-responses change; a path may be
# added, never lost (regenerate only to add: see _operations below). One deliberate move: the
# OAuth client's redirect URIs and secret roll left the project's key for its owner's sign-in,
# under /v1/projects/{project_id}/oauth-client (issue 38, H1).
PATHS_FILE = Path(__file__).with_name("openapi_paths.txt")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app(Settings(environment="test")).openapi()


def _operations(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        f"{method.upper()} {path}": op
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in METHODS
    }


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        schema = doc["components"]["schemas"][name]
    return schema


def _members(doc: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a (possibly nullable) union, resolved; a plain schema is its own."""
    schema = _resolve(doc, schema)
    union = schema.get("anyOf") or schema.get("oneOf")
    if union is None:
        return [schema]
    return [m for u in union for m in _members(doc, u) if m.get("type") != "null"]


def _object_faults(doc: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    """Why ``schema`` is not an object with declared properties (every member of a union)."""
    # An explicitly empty object (``additionalProperties: false``) is declared too.
    if all(
        m.get("properties") or m.get("additionalProperties") is False for m in _members(doc, schema)
    ):
        return []
    return [f"{where} is not an object with declared properties"]


def _envelope_faults(doc: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """An envelope's ``data`` (one resource or a list) and its ``attributes`` are declared."""
    faults = _object_faults(doc, schema, "the body")
    body = _resolve(doc, schema)
    if faults or "data" not in body.get("properties", {}):
        return faults  # a typed non-envelope body (legacy forms, health, OAuth) is fine
    resources = [
        _resolve(doc, m.get("items", {})) if m.get("type") == "array" else m
        for m in _members(doc, body["properties"]["data"])
    ]
    for resource in resources:
        if not resource.get("properties"):
            return ["data is not an object with declared properties"]
        if "attributes" in resource["properties"]:
            faults += _object_faults(doc, resource["properties"]["attributes"], "data.attributes")
    return sorted(set(faults))


def _success_faults(doc: dict[str, Any], op: dict[str, Any]) -> list[str]:
    successes = {s: r for s, r in op["responses"].items() if str(s).startswith("2")}
    if not successes:
        return ["no 2xx response"]
    faults: list[str] = []
    for status, response in successes.items():
        content = response.get("content") or {}
        if status == "204" and not content:
            continue
        if not content:
            faults.append(f"{status} has no body schema")
        for media, body in content.items():
            schema = body.get("schema") or {}
            if media.startswith("text/") and schema.get("type") == "string":
                continue  # an HTML page or plain text, declared as such
            faults += [f"{status} {media}: {f}" for f in _envelope_faults(doc, schema)]
    return faults


def _problem_faults(op: dict[str, Any]) -> list[str]:
    errors = {s: r for s, r in op["responses"].items() if str(s)[:1] in ("4", "5")}
    if not errors:
        return ["no problem response documented"]
    faults = []
    for status, response in errors.items():
        content = response.get("content") or {}
        schema = content.get("application/problem+json", {}).get("schema", {})
        if _legacy_401(op, status, content) or _oauth_error(op, content):
            continue
        if schema.get("$ref") != PROBLEM_REF or len(content) != 1:
            faults.append(f"{status} is not documented as a Problem")
    return faults


def _legacy_401(op: dict[str, Any], status: str, content: dict[str, Any]) -> bool:
    """The legacy routes keep their own 401 body (``{error, message, code}``), declared."""
    schema = content.get("application/json", {}).get("schema", {})
    return status == "401" and "legacy" in op.get("tags", ()) and schema.get("$ref") == LEGACY_REF


def _oauth_error(op: dict[str, Any], content: dict[str, Any]) -> bool:
    """The authorization server answers by the OAuth standards: RFC 6749 error bodies, or an
    HTML page on its sign-in pages; both declared."""
    if "auth" not in op.get("tags", ()):
        return False
    json_schema = content.get("application/json", {}).get("schema", {})
    html_schema = content.get("text/html", {}).get("schema", {})
    return json_schema.get("$ref") == OAUTH_REF or html_schema.get("type") == "string"


def test_every_operation_has_a_typed_success_body(document: dict[str, Any]) -> None:
    untyped = {
        name: faults
        for name, op in _operations(document).items()
        if (faults := _success_faults(document, op))
    }
    assert not untyped, "\n".join(f"{k}: {'; '.join(v)}" for k, v in sorted(untyped.items()))


def test_every_operation_documents_its_problems(document: dict[str, Any]) -> None:
    undocumented = {
        name: faults
        for name, op in _operations(document).items()
        if (faults := _problem_faults(op))
    }
    assert not undocumented, "\n".join(
        f"{k}: {'; '.join(v)}" for k, v in sorted(undocumented.items())
    )


def test_no_operation_of_before_is_lost(document: dict[str, Any]) -> None:
    before = set(PATHS_FILE.read_text().split("\n")) - {""}
    missing = before - set(_operations(document))
    assert not missing, f"operations gone from /openapi.json: {sorted(missing)}"


def test_operation_ids_are_unique(document: dict[str, Any]) -> None:
    ids = [str(op.get("operationId")) for op in _operations(document).values()]
    assert "None" not in ids
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


# The spec ("Projects and whitelist"): the deployment also exposes the application and admin
# endpoints under ``/api/open/`` instead of ``/v1/``; nothing else lives under that prefix (the
# owner's api_secret roll once did, through a router mounted under both).
OPEN_PREFIX_OPERATIONS = {
    "POST /projects/apply",
    "GET /projects/applications",
    "GET /projects/applications/{application_id}",
    "GET /admin/projects/applications",
    "POST /admin/projects/applications/{application_id}/approve",
    "POST /admin/projects/applications/{application_id}/reject",
    "GET /admin/mcd/whitelist",
    "PUT /admin/mcd/whitelist/{project_id}/status",
    "DELETE /admin/mcd/whitelist/{project_id}",
    # the administrator's project endpoints (registration, status, control: issues 16, 34)
    "POST /projects/register",
    "PUT /admin/projects/{project_id}/status",
    "GET /admin/projects",
    "GET /admin/projects/{project_id}",
    "PATCH /admin/projects/{project_id}",
}


def test_the_open_prefix_serves_the_application_and_admin_endpoints_only(
    document: dict[str, Any],
) -> None:
    operations = set(_operations(document))
    served = {name.replace(" /api/open/", " /") for name in operations if " /api/open/" in name}
    assert served == OPEN_PREFIX_OPERATIONS
    # each is also served under /v1, as the same operation
    assert {name.replace(" /", " /v1/", 1) for name in served} <= operations


def test_the_checks_catch_a_free_form_body() -> None:
    """The walker is not vacuous: a bare ``Envelope`` (free-form attributes) is flagged."""
    doc = {
        "components": {
            "schemas": {
                "Envelope": {
                    "type": "object",
                    "properties": {"data": {"anyOf": [{"$ref": "#/components/schemas/R"}]}},
                },
                "R": {
                    "type": "object",
                    "properties": {"attributes": {"type": "object", "additionalProperties": True}},
                },
            }
        }
    }
    op = {
        "responses": {
            "200": {
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}
                }
            },
            "404": {"description": "x"},
        }
    }
    assert _success_faults(doc, op) == [
        "200 application/json: data.attributes is not an object with declared properties"
    ]
    assert _problem_faults(op) == ["404 is not documented as a Problem"]


def _resource_attributes(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every schema used as a resource's ``attributes`` (``TypedResource[X]`` and the chain
    views' resources), by name."""
    found = {}
    for schema in doc["components"]["schemas"].values():
        properties = schema.get("properties", {})
        if {"type", "id", "attributes"} <= set(properties):
            for member in _members(doc, properties["attributes"]):
                name = member.get("title", "?")
                found[name] = member
    return found


def test_resource_attributes_refuse_undeclared_keys(document: dict[str, Any]) -> None:
    """One definition per shape (issue 28, item 5): a resource's attributes model forbids keys
    it does not declare, so nothing reaches the wire that the document does not show."""
    attributes = _resource_attributes(document)
    assert len(attributes) > 50
    open_ = sorted(n for n, s in attributes.items() if s.get("additionalProperties") is not False)
    assert not open_, f"attributes that accept undeclared keys: {open_}"


def test_public_names_follow_one_rule(document: dict[str, Any]) -> None:
    """The SDK takes its public names from these: no module path leaks into a name
    (``api__routes__territory__Totals``), and a resource's attributes end in ``Attributes``."""
    names = set(document["components"]["schemas"])
    leaked = sorted(n for n in names if "__" in n or n.startswith("ApiRoutes"))
    assert not leaked, leaked
    assert not sorted(n for n in names if n.endswith("Attrs"))
    resources = _resource_attributes(document)
    # Parts of the chain views keep their layout's names (Attributes is their suffix too).
    assert not sorted(n for n in resources if not n.endswith("Attributes"))
