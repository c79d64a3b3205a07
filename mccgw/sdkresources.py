"""The SDKs' resource methods (``gw.funds.lock(...)``), planned from the OpenAPI document.

One :class:`Method` per route: its resource (from the route's tag), its name (from the route's
function, the resource's own words dropped: ``lock_funds`` under ``funds`` is ``funds.lock``), its
path, query and body parameters with their JSON schemas, and what it returns (the envelope's
``data``, the pages of a paged list, or the whole answer). ``mccgw/sdkgen.py`` writes the Python
resources from the plan and ``mccgw/sdkts.py`` the TypeScript ones, so a new route gets its
method in both SDKs by ``make sdk-models`` alone. ``RESOURCES`` and ``NAMES`` only make a derived
name read better; a route missing from them still gets a method.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

_REF = "#/components/schemas/"
# Tags whose routes are not JSON calls of a project or a user: the OAuth endpoints (forms and
# redirects, driven by the browser), and the legacy paths kept for old clients.
SKIPPED_TAGS = frozenset({"auth", "legacy"})
# A tag -> its resource path, where the tag's own words would not read well.
RESOURCES = {
    "attributes": ("users", "attributes"),
    "onboarding": ("projects",),
    "admin: engine": ("transfers",),
    "admin: organizations": ("organizations",),
    "chain views: auction": ("auctions",),
}
# A route function -> its method name, where the derived one would not read well.
NAMES = {
    "funds_transfer": "funds_transfer",
    "get_client": "oauth_client",
    "get_activity": "retrieve",
    "list_endpoints": "list",
    "get_endpoint": "retrieve",
    "update_endpoint": "update",
    "delete_endpoint": "delete",
    "list_deliveries": "deliveries",
    "remove_from_whitelist": "remove",
    "project_attributes": "for_project",
    "change_project_status": "change_status",
    "wallet_auctions": "wallet_auctions",
}
Kind = Literal["one", "list", "pages", "model", "json"]


@dataclass
class Param:
    name: str
    schema: dict[str, Any]
    required: bool
    description: str = ""


@dataclass
class Method:
    admin: bool  # on the admin client (routes under /v1/admin)
    resource: tuple[str, ...]  # ("users", "attributes") -> gw.users.attributes
    name: str  # report -> gw.users.attributes.report(...)
    operation: str  # the Operation's name in operations.py (lock_funds)
    http_method: str
    path: str
    summary: str
    path_params: list[Param]
    query: list[Param]
    body: list[Param]
    request: str | None  # the request model
    response: str | None  # the response model (the envelope)
    kind: Kind
    item: str | None  # the model of data / of a list's item
    public: bool  # no credentials needed (a browser may call it)
    status_codes: list[int] = field(default_factory=list)
    # Other successes of another shape (approve: 202 `approving` from gateways before 1.1.0).
    alternatives: list[str] = field(default_factory=list)  # their response models
    alternative_items: list[str] = field(default_factory=list)  # the models of their data


def _schema(spec: dict[str, Any], node: dict[str, Any] | None) -> dict[str, Any]:
    """The component a ``$ref`` names (or ``anyOf [$ref, null]``), else the node itself."""
    node = node or {}
    name = ref_name(node)
    return spec["components"]["schemas"].get(name, node) if name else node


def ref_name(node: dict[str, Any] | None) -> str | None:
    if not node:
        return None
    if "$ref" in node:
        return str(node["$ref"]).removeprefix(_REF)
    refs = [s for s in node.get("anyOf", []) if "$ref" in s]
    return ref_name(refs[0]) if len(refs) == 1 and len(node["anyOf"]) <= 2 else None


def _json(part: dict[str, Any]) -> dict[str, Any] | None:
    found = part.get("content", {}).get("application/json", {}).get("schema")
    return found if isinstance(found, dict) else None


def _resource(tag: str) -> tuple[str, ...]:
    if tag in RESOURCES:
        return RESOURCES[tag]
    return (re.sub(r"\W+", "_", tag.rpartition(":")[2].strip()),)


def _method_name(function: str, resource: tuple[str, ...], http_method: str, path: str) -> str:
    if function in NAMES:
        return NAMES[function]
    own = {w for r in resource for w in (r, r.rstrip("s"))}
    words = function.split("_")
    kept = [w for w in words if w not in own]
    if kept in ([], ["get"]) and http_method == "GET" and "{" in path:
        return "retrieve"
    return "_".join(kept or words)


def _result(
    spec: dict[str, Any], response: str | None, query: list[Param]
) -> tuple[Kind, str | None]:
    if response is None:
        return "json", None
    schema = spec["components"]["schemas"][response]
    data = (schema.get("properties") or {}).get("data")
    if not data:
        return "model", None
    if ref_name(data):
        return "one", ref_name(data)
    items = data.get("items") if data.get("type") == "array" else None
    if items is None:
        return "model", None
    meta = _schema(spec, (schema.get("properties") or {}).get("meta"))
    paged = {"page", "per_page"} <= set(meta.get("properties") or {})
    if paged and {"page", "per_page"} <= {p.name for p in query}:
        return "pages", ref_name(items)
    return "list", ref_name(items)


def plan(spec: dict[str, Any], operations: list[dict[str, Any]]) -> list[Method]:
    """Every resource method, from the (renamed) document and sdkgen's operations."""
    methods = []
    for op in operations:
        route = spec["paths"][op["path"]][op["method"].lower()]
        tags = route.get("tags") or ["default"]
        if SKIPPED_TAGS & set(tags):
            continue
        body_part = route.get("requestBody")
        if body_part and _json(body_part) is None:
            continue  # a file upload (multipart): the low-level client sends it
        resource = _resource(tags[0])
        function = str(route["operationId"]).split(re.sub(r"\W", "_", op["path"]))[0].rstrip("_")
        params = route.get("parameters", [])

        def params_in(where: str, params: list[dict[str, Any]] = params) -> list[Param]:
            return [
                Param(
                    p["name"],
                    p.get("schema", {}),
                    bool(p.get("required")),
                    p.get("description", ""),
                )
                for p in params
                if p["in"] == where
            ]

        query = params_in("query")
        body: list[Param] = []
        if op["request"]:
            request = spec["components"]["schemas"][op["request"]]
            required = set(request.get("required", []))
            body = [
                Param(name, prop, name in required, prop.get("description", ""))
                for name, prop in (request.get("properties") or {}).items()
            ]
        kind, item = _result(spec, op["response"], query)
        alternatives = list(op.get("alternatives", {}).values())
        alternative_items = [i for a in alternatives if (i := _result(spec, a, query)[1])]
        methods.append(
            Method(
                admin=op["path"].startswith("/v1/admin/"),
                resource=resource,
                name=_method_name(function, resource, op["method"], op["path"]),
                operation=op["name"],
                http_method=op["method"],
                path=op["path"],
                summary=op["summary"],
                path_params=params_in("path"),
                query=[q for q in query if kind != "pages" or q.name not in ("page", "per_page")],
                body=body,
                request=op["request"],
                response=op["response"],
                kind=kind,
                item=item,
                public=not route.get("security"),
                status_codes=sorted(int(s) for s in route.get("responses", {}) if s.isdigit()),
                alternatives=alternatives,
                alternative_items=alternative_items,
            )
        )
    seen: dict[tuple[bool, tuple[str, ...], str], list[Method]] = {}
    for m in methods:
        seen.setdefault((m.admin, m.resource, m.name), []).append(m)
    for clashing in seen.values():
        if len(clashing) > 1:  # two routes would share a name: each keeps its function's
            for m in clashing:
                m.name = m.operation
    return sorted(methods, key=lambda m: (m.admin, m.resource, m.name))


def resource_tree(methods: list[Method]) -> dict[tuple[str, ...], list[Method]]:
    """Resource path -> its methods; every parent of a nested resource is present."""
    tree: dict[tuple[str, ...], list[Method]] = {}
    for m in methods:
        for depth in range(1, len(m.resource)):
            tree.setdefault(m.resource[:depth], [])
        tree.setdefault(m.resource, []).append(m)
    return dict(sorted(tree.items()))


def class_name(resource: tuple[str, ...], prefix: str = "") -> str:
    return prefix + "".join(w.title() for part in resource for w in part.split("_"))


# -- Python -------------------------------------------------------------------------------------


def py_type(schema: dict[str, Any], models: set[str]) -> str:
    """The Python annotation of a parameter of this JSON schema (``models.X`` for a component;
    ``builtins.list``: a resource may have a method called ``list``)."""
    name = ref_name(schema)
    if name and "anyOf" not in schema:
        return f"models.{name}" if name in models else "Any"
    if "anyOf" in schema or "oneOf" in schema:
        parts = [py_type(s, models) for s in schema.get("anyOf", schema.get("oneOf", []))]
        return " | ".join(dict.fromkeys(parts))
    if "enum" in schema:
        return "Literal[" + ", ".join(repr(v) for v in schema["enum"]) + "]"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(py_type({**schema, "type": k}, models) for k in kind)
    if kind == "string":
        fmt = schema.get("format")
        return {"date-time": "datetime | str", "date": "date | str"}.get(fmt or "", "str")
    if kind == "array":
        return f"builtins.list[{py_type(schema.get('items', {}), models)}]"
    if kind == "object":
        return "dict[str, Any]"
    return {"integer": "int", "number": "float", "boolean": "bool", "null": "None"}.get(
        str(kind), "Any"
    )


def _optional(annotation: str) -> str:
    return annotation if "None" in annotation.split(" | ") else f"{annotation} | None"


def _py_signature(m: Method, models: set[str]) -> tuple[list[str], str]:
    """The parameters (path ones positional, the rest keyword-only) and the return type."""
    args = ["self"]
    args += [f"{p.name}: {py_type(p.schema, models)}" for p in m.path_params]
    keyword = [p for p in m.body + m.query if p.required] + [
        p for p in m.body + m.query if not p.required
    ]
    if keyword or m.kind == "pages":
        args.append("*")
    for p in keyword:
        annotation = py_type(p.schema, models)
        args.append(
            f"{p.name}: {annotation}" if p.required else f"{p.name}: {_optional(annotation)} = None"
        )
    if m.kind == "pages":
        args.append("per_page: int = 100")
    item = " | ".join(f"models.{i}" for i in [m.item, *m.alternative_items]) if m.item else "Any"
    returns = {
        "one": item,
        "list": f"builtins.list[{item}]",
        "pages": f"Iterator[models.{m.response}]",
        "model": f"models.{m.response}",
        "json": "Any",
    }[m.kind]
    return args, returns


def _py_method(m: Method, models: set[str], asynchronous: bool) -> list[str]:
    args, returns = _py_signature(m, models)
    if asynchronous and m.kind == "pages":
        returns = returns.replace("Iterator[", "AsyncIterator[")
    options = []
    if m.path_params:
        pairs = ", ".join(f"{p.name!r}: {p.name}" for p in m.path_params)
        options.append(f"path_params={{{pairs}}}")
    if m.query:
        pairs = ", ".join(f"{p.name!r}: {p.name}" for p in m.query)
        options.append(f"params={{{pairs}}}")
    if m.request:
        pairs = ", ".join(f"{p.name!r}: {p.name}" for p in m.body)
        options.append(f"body=_given({{{pairs}}})")
    verb = "call"
    if m.kind == "pages":
        verb = "call_pages"
        options.append("per_page=per_page")
    call = f"self._client.{verb}(operations.{m.operation}{''.join(', ' + o for o in options)})"
    doc = m.summary.replace('"""', "'''").replace("\\", "\\\\") or f"{m.http_method} {m.path}"
    prefix = "async " if asynchronous and m.kind != "pages" else ""
    head = f"{prefix}def {m.name}({', '.join(args)}) -> {returns}:"
    body = [f'    """{doc} (``{m.http_method} {m.path}``)"""']
    awaited = f"(await {call})" if asynchronous else call
    if m.kind == "pages":
        body.append(f"    return {call}")
    elif m.kind in ("one", "list"):
        body.append(f"    return {awaited}.data")
    else:
        body.append(f"    return {'await ' + call if asynchronous else call}")
    return [head, *body]


def _py_classes(
    methods: list[Method], models: set[str], asynchronous: bool, prefix: str
) -> list[str]:
    tree = resource_tree(methods)
    transport = "AsyncTransport" if asynchronous else "SyncTransport"
    out: list[str] = []
    for resource, members in tree.items():
        children = [r for r in tree if len(r) == len(resource) + 1 and r[:-1] == resource]
        out += [f"class {class_name(resource, prefix)}:", f'    """``{".".join(resource)}``"""', ""]
        out += [
            f"    def __init__(self, client: {transport}) -> None:",
            "        self._client = client",
        ]
        out += [f"        self.{c[-1]} = {class_name(c, prefix)}(client)" for c in children]
        for m in members:
            out += [""] + ["    " + line for line in _py_method(m, models, asynchronous)]
        out += ["", ""]
    return out


def _py_entry(
    methods: list[Method], asynchronous: bool, name: str, prefix: str, doc: str
) -> list[str]:
    transport = "AsyncTransport" if asynchronous else "SyncTransport"
    out = [f"class {name}:", f'    """{doc}"""', ""]
    for resource in resource_tree(methods):
        if len(resource) == 1:
            out += [
                "    @cached_property",
                f"    def {resource[0]}(self) -> {class_name(resource, prefix)}:",
            ]
            out += [f'        return {class_name(resource, prefix)}(cast("{transport}", self))', ""]
    return [*out, "", ""]


def python_module(methods: list[Method], models: set[str], header: str) -> str:
    """resources.py: a class per resource, sync and async, and the mixins that give the clients
    their resources (``Client.funds``, ``AdminClient.transfers``...)."""
    lines = [
        '"""Resource methods: ``gw.funds.lock(user_uid=..., ...)`` -> a typed ``data``.',
        "",
        header,
        '"""',
        "",
        "# ruff: noqa: E501, RUF100",
        "from __future__ import annotations",
        "",
        "import builtins",
        "from collections.abc import AsyncIterator, Iterator",
        "from datetime import date, datetime",
        "from functools import cached_property",
        "from typing import TYPE_CHECKING, Any, Literal, cast",
        "",
        "from . import models, operations",
        "from ._operation import given as _given",
        "",
        "if TYPE_CHECKING:",
        "    from .client import AsyncTransport, SyncTransport",
        "",
        "",
    ]
    project = [m for m in methods if not m.admin]
    admin = [m for m in methods if m.admin]
    for asynchronous in (False, True):
        a = "Async" if asynchronous else ""
        lines += _py_classes(project, models, asynchronous, a)
        lines += _py_classes(admin, models, asynchronous, f"{a}Admin")
        lines += _py_entry(
            project,
            asynchronous,
            f"{a}ProjectResources",
            a,
            "The resources of a project's client (and of a user's or developer's).",
        )
        lines += _py_entry(
            admin,
            asynchronous,
            f"{a}AdminResources",
            f"{a}Admin",
            "The administrator's resources (routes under /v1/admin).",
        )
    return "\n".join(lines).rstrip() + "\n"
