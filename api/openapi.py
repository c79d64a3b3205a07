"""The OpenAPI document says what the API really answers on errors: every 4xx/5xx is an RFC
7807 ``application/problem+json`` body (``Problem``), including the 422 that FastAPI would
document as its own ``HTTPValidationError`` shape (which this API never sends)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "type": "object",
    "description": "RFC 7807 / RFC 9457 problem details; `type` ends in a stable slug.",
    "required": ["type", "title", "status"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
            },
        },
    },
    "additionalProperties": True,
}
_PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
_FASTAPI_422 = ("HTTPValidationError", "ValidationError")

# The usual meaning of each status, for a route's ``responses=problems(...)``: the one place a
# standard problem is described; routes add only what is particular to them.
COMMON_PROBLEMS: dict[int, str] = {
    401: "Missing or invalid credentials (`unauthorized`)",
    403: "Missing scope (`insufficient-scope`)",
    404: "No such resource (`not-found`)",
    409: "`idempotency-key-reused` / `idempotency-key-in-use`",
    422: "Invalid parameter or body (`validation-error`)",
    429: "Rate limited (`rate-limit-exceeded`)",
    500: "Unexpected error (`internal-error`)",
    503: "A backing service is unavailable (`service-unavailable`)",
}

# How each kind of caller is refused (401 and 403), for ``problems(caller=...)``; a kind
# missing a status keeps its usual meaning.
Caller = Literal["admin", "project", "project-for-user", "user-or-project"]
_PROJECT_REFUSED = "Project credentials refused (`unknown-project`, `invalid-api-key`, ...)"
_NOT_GRANTED = "`insufficient-scope`, `user-not-authorized-for-project`, ..."
CALLER_PROBLEMS: dict[Caller, dict[int, str]] = {
    "admin": {403: "Not an administrator (`admin-required`)"},
    "project": {401: _PROJECT_REFUSED, 403: "`project-suspended`, `ip-not-allowed`"},
    # a project acting on a user's data, which needs that user's grant
    "project-for-user": {401: _PROJECT_REFUSED, 403: _NOT_GRANTED},
    "user-or-project": {403: _NOT_GRANTED},
}

# The chain's answers for the on-chain reads (views) and the token reads.
CHAIN_UNREACHABLE = "The chain RPC is unreachable (`service-unavailable`)"


def problems(
    *statuses: int,
    caller: Caller | None = None,
    scope: str | None = None,
    subject: str | None = None,
    **described: str,
) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries, each rendered as a Problem body (``_patch``): the usual meaning
    of each status in ``statuses``; ``caller`` adds that caller's 401 and 403, ``scope`` a 403
    naming the missing scope, ``subject`` a 404 naming what was not found; route-specific
    meanings come last, as ``s404="No such application of the caller"``."""
    texts = {s: COMMON_PROBLEMS[s] for s in statuses}
    if caller is not None:
        texts |= {401: COMMON_PROBLEMS[401], 403: COMMON_PROBLEMS[403]}
        texts |= CALLER_PROBLEMS[caller]
    if scope is not None:
        texts[403] = f"Missing scope {scope} (`insufficient-scope`)"
    if subject is not None:
        texts[404] = f"No such {subject} (`not-found`)"
    texts |= {int(k.removeprefix("s")): v for k, v in described.items()}
    return {s: {"description": text} for s, text in texts.items()}


def _patch(document: dict[str, Any]) -> dict[str, Any]:
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = PROBLEM_SCHEMA
    for path_item in document.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, response in operation["responses"].items():
                if str(status)[:1] not in ("4", "5") or not isinstance(response, dict):
                    continue
                content = response.get("content") or {}
                refs = {str(v.get("schema", {}).get("$ref", "")) for v in content.values()}
                if not content or any(r.endswith(_FASTAPI_422) for r in refs):
                    response["content"] = {"application/problem+json": {"schema": _PROBLEM_REF}}
    used = str(document.get("paths"))
    for name in _FASTAPI_422:
        if name not in used:
            schemas.pop(name, None)
    return document


def install_problem_schemas(app: FastAPI) -> None:
    """Wrap ``app.openapi`` so the served document carries the Problem schema."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _patch(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
