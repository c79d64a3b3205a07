"""The hostile-input suite, second half (issue 31, Deliver 2): a fuzzer that reaches every byte.

Where tests/security/test_fuzz.py lets schemathesis generate *valid-looking* cases, this one
sends, for every operation of /openapi.json (generic over the document: a route added later is
covered), the inputs a generator rarely makes:

- a body on a method that takes none (a nested one, as anonymous, project, signed-project and
  user callers: the path that parsed a GET body before checking its signature);
- missing, wrong and duplicated ``Content-Type``; deeply nested and very large JSON;
- in every date-time field of the body and query: naive, offset and out-of-range times, each
  with the sibling date-time fields valid and aware (so a comparison of the two is reached);
- in every string field: NUL, a lone surrogate, 100,000 characters; in every integer field:
  huge and negative values; every query parameter duplicated; oversized headers.

Every answer must be under 500, and an RFC 7807 problem when it is an error (the OAuth
endpoints and the legacy routes keep their own documented error shapes), and the API must stay
responsive (a health check after each operation). The cases are fixed (no randomness), so a
failure names the operation, the caller and the case to replay.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from tests.factories import clear_rate_windows
from tests.security.test_fuzz import Target, target

__all__ = ["target"]

NESTED = b"[" * 100_000
NESTED_OBJECT = b'{"a":' * 50_000
LARGE = b"[" + b"1," * 1_500_000 + b"1]"  # 3 MB, past every body cap
DATETIMES = {
    "naive": "2030-01-01T00:00:00",
    "offset": "2030-01-01T00:00:00+14:00",
    "far-offset": "9999-12-31T23:59:59-14:00",
    "year-one": "0001-01-01T00:00:00+14:00",
    "out-of-range": "10000-01-01T00:00:00Z",
    "month-13": "2030-13-01T00:00:00Z",
}
STRINGS = {"nul": "a\x00b", "surrogate": "\ud800", "long": "x" * 100_000}
INTEGERS = {"huge": 2**80, "negative-huge": -(2**80), "negative": -1}
HOSTILE: dict[str, dict[str, Any]] = {
    "date-time": DATETIMES,
    "string": STRINGS,
    "integer": INTEGERS,
}
VALID_TIME = "2030-01-01T00:00:00Z"
HEALTHY_WITHIN = 2.0  # seconds for /healthz after each operation


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    params: list[tuple[str, str]]
    headers: list[tuple[str, str]]
    content: bytes | None = None


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = document
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _kind(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The schema itself, or the first non-null branch of an anyOf/oneOf, resolved."""
    schema = _resolve(document, schema)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = [_resolve(document, b) for b in schema[key]]
            usable = [b for b in branches if b.get("type") != "null"]
            if usable:
                return usable[0]
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return _resolve(document, schema["allOf"][0])
    return schema


def _sample(document: dict[str, Any], schema: dict[str, Any], depth: int = 0) -> Any:
    """A plausible value: the first enum or example, else a small one of the type. Objects
    carry their required properties and every date-time property (so times meet)."""
    schema = _kind(document, schema)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if schema.get("format") == "date-time":
        return VALID_TIME
    if schema.get("examples"):
        return schema["examples"][0]
    if "example" in schema:
        return schema["example"]
    if kind == "string":
        return "1" * max(1, int(schema.get("minLength", 1)))
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items", {})
        count = int(schema.get("minItems", 0))
        return [
            _sample(document, items, depth + 1) for _ in range(max(count, 1 if depth < 3 else 0))
        ]
    if kind == "object" or "properties" in schema:
        required = set(schema.get("required", ()))
        out = {}
        for name, prop in schema.get("properties", {}).items():
            resolved = _kind(document, prop)
            if name in required or resolved.get("format") == "date-time":
                out[name] = _sample(document, prop, depth + 1)
        return out
    return "1"


def _fields(
    document: dict[str, Any], schema: dict[str, Any], path: tuple[Any, ...] = (), depth: int = 0
) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(path, "date-time" | "string" | "integer") of every scalar field of the body schema."""
    schema = _kind(document, schema)
    if depth > 4:
        return
    if schema.get("format") == "date-time":
        yield path, "date-time"
    elif schema.get("type") == "string" and "enum" not in schema:
        yield path, "string"
    elif schema.get("type") == "integer":
        yield path, "integer"
    elif schema.get("type") == "array":
        yield from _fields(document, schema.get("items", {}), (*path, 0), depth + 1)
    elif "properties" in schema:
        for name, prop in schema["properties"].items():
            yield from _fields(document, prop, (*path, name), depth + 1)


def _set(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``body`` with ``value`` at ``path`` (containers made where missing)."""
    if not path:
        return value
    body = copy.deepcopy(body)
    node = body
    for key, following in zip(path, (*path[1:], None), strict=True):
        fresh: Any = value if following is None else ([] if isinstance(following, int) else {})
        if isinstance(key, int):
            if not isinstance(node, list):
                return body  # the sample holds a scalar here: nothing to reach
            while len(node) <= key:
                node.append(fresh if following is not None else None)
            if following is None:
                node[key] = value
        elif isinstance(node, dict):
            if following is None:
                node[key] = value
            elif not isinstance(node.get(key), (dict, list)):
                node[key] = fresh
        else:
            return body
        if following is not None:
            node = node[key]
    return body


def _json(value: Any) -> bytes:
    # Lone surrogates and NULs as JSON escapes, as a hostile client would send them.
    return json.dumps(value, ensure_ascii=True).encode()


def _path(template: str, parameters: list[dict[str, Any]], document: dict[str, Any]) -> str:
    path = template
    for p in parameters:
        if p.get("in") == "path":
            value = _sample(document, p.get("schema", {}))
            path = path.replace("{" + p["name"] + "}", str(value))
    return path


def _caller(operation: dict[str, Any]) -> str:
    security = operation.get("security") or []
    names = {name for requirement in security for name in requirement}
    if "OAuth2" in names:
        return "user"
    if names & {"ProjectId", "ApiKey", "Signature"}:
        return "project"
    return "anonymous"


def cases(
    document: dict[str, Any], method: str, template: str, operation: dict[str, Any], kind: str
) -> Iterator[Case]:
    """Every hostile case of one operation for the caller ``kind``."""
    parameters = [_resolve(document, p) for p in operation.get("parameters", [])]
    path = _path(template, parameters, document)
    method = method.upper()
    json_type = [("content-type", "application/json")]
    body_schema = (
        operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    ).get("schema")
    query = [p for p in parameters if p.get("in") == "query"]
    base_params = [
        (p["name"], str(_sample(document, p.get("schema", {})))) for p in query if p.get("required")
    ]

    def case(name: str, **kw: Any) -> Case:
        kw.setdefault("params", base_params)
        kw.setdefault("headers", [])
        return Case(f"{name}", kw.pop("method", method), path, **kw)

    # A body where none is taken (every caller): the nested one reached a parser before auth.
    if body_schema is None and "requestBody" not in operation:
        yield case("body-on-bodiless-method", headers=json_type, content=NESTED)
        yield case("json-body-on-bodiless-method", headers=json_type, content=b'{"a": 1}')
    if kind not in (_caller(operation), "signed"):
        return
    if method in ("POST", "PUT", "PATCH", "DELETE"):
        body = _json(_sample(document, body_schema)) if body_schema else b"{}"
        yield case("no-content-type", content=NESTED)
        yield case("text-content-type", headers=[("content-type", "text/plain")], content=body)
        yield case(
            "two-content-types",
            headers=[*json_type, ("content-type", "text/plain")],
            content=body,
        )
        yield case("nested-json", headers=json_type, content=NESTED)
        yield case("nested-object", headers=json_type, content=NESTED_OBJECT)
        yield case("large-json", headers=json_type, content=LARGE)
    if kind == "signed":
        return
    if body_schema is not None:
        base = _sample(document, body_schema)
        for field, field_kind in _fields(document, body_schema):
            hostile: dict[str, Any] = HOSTILE[field_kind]
            for label, value in hostile.items():
                yield case(
                    f"body {'.'.join(map(str, field))} {label}",
                    headers=json_type,
                    content=_json(_set(base, field, value)),
                )
    for p in query:
        schema = _kind(document, p.get("schema", {}))
        others = [(k, v) for k, v in base_params if k != p["name"]]
        values: dict[str, Any]
        if schema.get("format") == "date-time":
            values = DATETIMES
        elif schema.get("type") == "integer":
            values = INTEGERS
        else:  # a URL holds at most 64 KB (httpx, and servers): 60,000 characters here
            values = {**STRINGS, "long": "x" * 60_000}
        for label, value in values.items():
            yield case(f"query {p['name']} {label}", params=[*others, (p["name"], str(value))])
        sample = str(_sample(document, p.get("schema", {})))
        yield case(f"query {p['name']} twice", params=[*others, (p["name"], sample)] * 2)
    yield case(
        "oversized-headers", headers=[("x-request-id", "r" * 100_000), ("x-big", "b" * 1_000_000)]
    )


def _problem_expected(path: str) -> bool:
    """Routes whose error answers are RFC 7807 (the OAuth endpoints answer RFC 6749 errors or
    HTML, the legacy routes their plain shapes, the console HTML)."""
    return path.startswith("/v1/") or path in ("/healthz", "/readyz")


def _check(case: Case, response: httpx.Response) -> str | None:
    if response.status_code >= 500:
        return f"{response.status_code}: {response.text[:300]}"
    if response.status_code >= 400 and _problem_expected(case.path):
        kind = response.headers.get("content-type", "")
        if not kind.startswith("application/problem+json"):
            return f"{response.status_code} not a problem ({kind}): {response.text[:200]}"
        body = response.json()
        if body.get("status") != response.status_code or not body.get("type"):
            return f"{response.status_code} malformed problem: {response.text[:200]}"
    return None


def _url(case: Case) -> str:
    """The target with its query built by hand: a lone surrogate goes as its raw UTF-8 bytes
    (percent-escaped), which no client library would send."""
    if not case.params:
        return case.path
    query = "&".join(
        quote(name) + "=" + quote(value.encode("utf-8", "surrogatepass"))
        for name, value in case.params
    )
    return f"{case.path}?{query}"


def _signed(project_headers: dict[str, str]) -> dict[str, str]:
    return {
        "X-Project-ID": project_headers["X-Project-ID"],
        "X-Signature": "sha256=" + "0" * 64,
        "X-Timestamp": str(int(time.time())),
    }


def run(target: Target) -> tuple[list[str], int]:
    """Send every case; (failures, requests sent)."""
    document = target.app.openapi()
    credentials: dict[str, dict[str, str]] = {
        **target.credentials,
        "signed": _signed(target.credentials["project"]),
    }
    failures: list[str] = []
    sent = 0
    for template, item in document["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            target.loop.run(clear_rate_windows(target.app.state.redis))
            for kind, auth in credentials.items():
                if kind == "signed":
                    auth = _signed(target.credentials["project"])  # a fresh timestamp
                for case in cases(document, method, template, operation, kind):
                    headers = [*auth.items(), *case.headers]
                    request = target.client.build_request(
                        case.method, _url(case), headers=headers, content=case.content
                    )
                    try:
                        response = target.loop.run(target.client.send(request), timeout=30)
                    except Exception as exc:  # a hang or a transport error is a failure too
                        failures.append(
                            f"{method.upper()} {template} [{kind}] {case.name}: {exc!r}"
                        )
                        continue
                    sent += 1
                    if problem := _check(case, response):
                        failures.append(
                            f"{method.upper()} {template} [{kind}] {case.name}: {problem}"
                        )
            started = time.monotonic()
            health = target.loop.run(target.client.get("/healthz"), timeout=HEALTHY_WITHIN * 5)
            took = time.monotonic() - started
            if health.status_code != 200 or took > HEALTHY_WITHIN:
                failures.append(
                    f"after {method.upper()} {template}: /healthz {health.status_code}, "
                    f"{took:.1f} s"
                )
    return failures, sent


def test_fuzz_every_byte_no_5xx_problems_only_and_responsive(target: Target) -> None:
    started = time.monotonic()
    failures, sent = run(target)
    elapsed = time.monotonic() - started
    print(f"fuzz (bytes): {sent} requests, {elapsed:.1f} s, {len(failures)} failures")
    assert sent > 1_000, "the document lost its operations"
    assert not failures, "\n".join(failures[:60]) + (
        f"\n... and {len(failures) - 60} more" if len(failures) > 60 else ""
    )
