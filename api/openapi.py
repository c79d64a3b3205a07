"""The OpenAPI document says what the API really answers on errors: every 4xx/5xx is an RFC
7807 ``application/problem+json`` body (``Problem``), including the 422 that FastAPI would
document as its own ``HTTPValidationError`` shape (which this API never sends)."""

from __future__ import annotations

from typing import Any

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

# The usual meaning of each status, for a route's ``responses=problems(...)``.
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


def problems(*statuses: int, **described: str) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries, each rendered as a Problem body (``_patch``): the usual meaning
    of each status in ``statuses``, and route-specific ones as ``s404="No such user"``."""
    entries: dict[int | str, dict[str, Any]] = {
        s: {"description": COMMON_PROBLEMS[s]} for s in statuses
    }
    entries |= {int(k.removeprefix("s")): {"description": v} for k, v in described.items()}
    return entries


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
