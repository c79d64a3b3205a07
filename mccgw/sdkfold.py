"""How mccgw/sdkgen.py makes the generated SDK say each thing once: the OpenAPI document is
trimmed before the code generator sees it (default titles), and the generator's classes are
folded after (named enums, generic envelopes, extensions of a common base)."""

from __future__ import annotations

import json
import re
from typing import Any


def _default_title(name: str) -> str:
    """The title pydantic gives a field by default (``api_version`` -> ``Api Version``)."""
    return name.title().replace("_", " ")


def drop_default_titles(node: Any) -> None:
    """Field titles equal to the field's name say nothing: without them the generator writes
    ``name: type`` instead of ``name: Annotated[type, Field(title="Name")]``."""
    if isinstance(node, list):
        for item in node:
            drop_default_titles(item)
    if not isinstance(node, dict):
        return
    for name, prop in (node.get("properties") or {}).items():
        if isinstance(prop, dict) and prop.get("title") == _default_title(name):
            del prop["title"]
    for value in node.values():
        drop_default_titles(value)


def in_dependency_order(blocks: dict[str, str]) -> list[str]:
    """Class blocks ordered so each comes after the classes it names (depth first, otherwise in
    the generator's order): a part then imports only from earlier parts."""
    names = set(blocks)
    done: dict[str, None] = {}

    def visit(name: str, path: set[str]) -> None:
        if name in done or name in path:
            return
        defined_by = re.match(r"(?:class )?\w+", blocks[name])[0]  # type: ignore[index]
        for dep in re.findall(r"\b[A-Z]\w*\b", blocks[name][len(defined_by) :]):
            if dep in names and dep != name:
                visit(dep, path | {name})
        done[name] = None

    for name in blocks:
        visit(name, set())
    return [blocks[n] for n in done]


_TYPE_NAME = re.compile(r"\b[A-Z]\w*\b")
MAX_TYPE_VARS = 4


def fold_shapes(blocks: dict[str, str]) -> dict[str, str]:
    """Models of one shape that differ only in the models they name (the per-route envelopes:
    ``One*``, ``Many*``, ``Item*``...) become aliases of one generic model, written once.

    ``OneUnitAttributes = GenericDataMeta[TypedResourceUnitAttributes, Meta]`` keeps the public
    name, validates the same JSON and is a class like before."""
    shapes: dict[str, list[tuple[str, list[str]]]] = {}
    for name, block in blocks.items():
        head, _, body = block.partition("\n")
        if head != f"class {name}(BaseModel):":
            continue
        params: list[str] = []

        def slot(found: re.Match[str], params: list[str] = params) -> str:
            if found[0] not in blocks:
                return found[0]
            if found[0] not in params:
                params.append(found[0])
            return f"\x00{params.index(found[0])}\x00"

        shape = _TYPE_NAME.sub(slot, body)
        if params:
            shapes.setdefault(shape, []).append((name, params))
    folded = dict(blocks)
    for shape, members in shapes.items():
        if len(members) < 3 or len(members[0][1]) > MAX_TYPE_VARS:  # three uses earn a generic
            continue
        # Named after the members' common prefix (One*, Many*), else after the fields.
        word = re.match(r"[A-Z][a-z]*", members[0][0])[0]  # type: ignore[index]
        fields = re.findall(r"^    (\w+):", shape, re.MULTILINE)
        generic = "Generic" + (
            word
            if all(m[0].startswith(word) for m in members)
            else "".join(f.title().replace("_", "") for f in fields)
        )
        while generic in folded:
            generic += "_"
        count = len(members[0][1])
        body = re.sub("\x00(\\d+)\x00", lambda m: f"_T{m[1]}", shape)
        type_vars = ", ".join(f"_T{i}" for i in range(count))
        folded[generic] = f"class {generic}(BaseModel, Generic[{type_vars}]):\n{body}"
        for name, params in members:
            folded[name] = f"{name} = {generic}[{', '.join(params)}]"
    return folded


def _fields(block: str) -> list[str] | None:
    """A plain model's field statements (one per field, however many lines), else None."""
    head, _, body = block.partition("\n")
    if not re.fullmatch(r"class \w+\(BaseModel\):", head) or not body.startswith("    "):
        return None
    fields = re.split(r"\n(?=    \w+:)", body)
    return fields if all(re.match(r"    \w+:", f) for f in fields) else None


def fold_extensions(blocks: dict[str, str]) -> dict[str, str]:
    """A model with every field of another (a server-side subclass, flattened by OpenAPI)
    extends the largest such model and lists only the fields it adds."""
    fields = {n: f for n, b in blocks.items() if (f := _fields(b)) is not None}
    folded = dict(blocks)
    for name, own in fields.items():
        parents = [
            other
            for other, theirs in fields.items()
            if other != name and set(theirs) < set(own) and sum(map(len, theirs)) >= 240
        ]  # about six lines of fields: less is not worth a base class
        if parents:
            parent = max(parents, key=lambda p: len(fields[p]))
            added = [f for f in own if f not in set(fields[parent])]
            folded[name] = f"class {name}({parent}):\n" + "\n".join(added)
    return folded


def name_enums(source: str, spec: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """A named enum of the document (``EventType``) is written once, as a ``Literal`` alias,
    where the generator would inline its values at every use (it collapses root models)."""
    named: dict[str, str] = {}
    for name, schema in spec["components"]["schemas"].items():
        values = schema.get("enum")
        if schema.get("type") != "string" or not values:
            continue
        literal = "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"
        if literal in source:
            source = source.replace(literal, name)
            named[name] = f"{name}: TypeAlias = {literal}"
    return source, named
