"""How mccgw/sdkgen.py makes the generated SDK say each thing once: the OpenAPI document is
trimmed before the code generator sees it (default titles, extra fields, nullable roots), and
the generator's classes are folded after (named enums, generic envelopes, common bases)."""

from __future__ import annotations

import json
import re
from typing import Any


def _default_title(name: str) -> str:
    """The title pydantic gives a field by default (``api_version`` -> ``Api Version``)."""
    return name.title().replace("_", " ")


def trim_document(node: Any) -> None:
    """Drop what says nothing to the generated models: field titles equal to the field's name
    (the generator then writes ``name: type``, not ``Annotated[type, Field(title="Name")]``)
    and ``additionalProperties`` on a model (every model's base class allows extra fields, so
    no model needs its own ``model_config``); nullable roots are merged."""
    if isinstance(node, list):
        for item in node:
            trim_document(item)
    if not isinstance(node, dict):
        return
    for name, prop in (node.get("properties") or {}).items():
        if isinstance(prop, dict) and prop.get("title") == _default_title(name):
            del prop["title"]
    extra = node.get("additionalProperties")
    if extra is False or (extra is True and node.get("properties")):
        # The gateway refuses unknown fields in what it is sent and builds its answers exactly
        # (`extra="forbid"`), but a client must keep working when a later gateway adds a field:
        # every SDK model allows extra fields (its base class), none forbids them.
        del node["additionalProperties"]
    _merge_nullable(node)
    for value in node.values():
        trim_document(value)


def _merge_nullable(node: dict[str, Any]) -> None:
    """``anyOf: [{type: string, maxLength: 256}, {type: null}]`` -> ``type: [string, null],
    maxLength: 256``: the generator then writes ``Annotated[str | None, Field(max_length=256)]``
    on the field, instead of a root model of its own (``Secret``, ``Secret1``...) for each."""
    alternatives = node.get("anyOf")
    if not isinstance(alternatives, list) or len(alternatives) != 2:
        return
    if {"type": "null"} not in alternatives:
        return
    (other,) = (a for a in alternatives if a != {"type": "null"})
    if other.get("type") not in ("string", "integer", "number", "array") or len(other) < 2:
        return  # a model, or a plain type the generator already writes as `X | None`
    if set(other) & set(node):
        return
    del node["anyOf"]
    node.update(other, type=[other["type"], "null"])


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
    name, validates the same JSON and is a class like before; a list envelope is the same
    generic over a list (``GenericDataMeta[list[TypedResourceUnitAttributes], PageMeta]``)."""
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
        for i, param in enumerate(params):  # `data: list[X]` is `data: T` with T = list[X]
            wrapped = f"list[\x00{i}\x00]"
            if shape.count(f"\x00{i}\x00") == shape.count(wrapped):
                shape = shape.replace(wrapped, f"\x00{i}\x00")
                params[i] = f"list[{param}]"
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


def _fields(block: str) -> tuple[str, list[str]] | None:
    """A plain model's docstring (with its blank line, or "") and field statements (one per
    field, however many lines), else None."""
    head, _, body = block.partition("\n")
    if not re.fullmatch(r"class \w+\(BaseModel\):", head):
        return None
    doc = re.match(r'    """.*?"""\n\n', body, re.DOTALL)
    body = body[doc.end() :] if doc else body
    if not body.startswith("    "):
        return None
    fields = re.split(r"\n(?=    \w+:)", body)
    if not all(re.match(r"    \w+:", f) for f in fields):
        return None
    return (doc[0] if doc else ""), fields


def fold_extensions(blocks: dict[str, str]) -> dict[str, str]:
    """A model with every field of another (a server-side subclass, flattened by OpenAPI)
    extends the largest such model and lists only the fields it adds: a model of about six
    lines of fields or more, or a smaller one the name says it is a kind of (``CountMeta`` is
    a ``Meta``; a ``LockIn`` is not a ``PlacementIn`` for sharing two of its fields)."""
    models = {n: f for n, b in blocks.items() if (f := _fields(b)) is not None}
    folded = dict(blocks)
    for name, (doc, own) in models.items():
        parents = [
            other
            for other, (_, theirs) in models.items()
            if other != name
            and set(theirs) < set(own)
            and (sum(map(len, theirs)) >= 240 or name.endswith(other))
        ]
        if parents:
            parent = max(parents, key=lambda p: len(models[p][1]))
            added = [f for f in own if f not in set(models[parent][1])]
            folded[name] = f"class {name}({parent}):\n{doc}" + "\n".join(added)
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


def _annotated_end(text: str, start: int) -> int:
    """The index just past the ``]`` that closes the ``Annotated[`` ending at ``start``."""
    depth, i = 1, start
    while depth:
        if text[i] == '"':  # a string (the generator writes double quotes): its brackets are text
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif text[i] in "[]":
            depth += 1 if text[i] == "[" else -1
        i += 1
    return i


def name_repeated_fields(blocks: dict[str, str]) -> dict[str, str]:
    """A field declared the same way in three models or more (``idempotency_key: Annotated[str
    | None, Field(description=...)]``) gets its type written once, as an alias named after it
    (``IdempotencyKey``), and each model declares ``idempotency_key: IdempotencyKey = None``."""
    uses: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name, block in blocks.items():
        if not block.startswith("class ") or "(RootModel[" in block.partition("\n")[0]:
            continue  # a root model's `root` is its whole type, not a field to share
        for found in re.finditer(r"^    (\w+): Annotated\[", block, re.MULTILINE):
            end = _annotated_end(block, found.end())
            annotated = block[found.end() - len("Annotated[") : end]
            key = (found[1], " ".join(annotated.split()))
            uses.setdefault(key, []).append((name, block[found.start() : end]))
    folded = dict(blocks)
    for (field, annotated), places in uses.items():
        alias = "".join(part.title() for part in field.split("_"))
        if len(places) < 3 or re.search(rf"\b{alias}\b", "\n".join(folded.values())):
            continue  # a name already taken (a model, or an import such as `Field`)
        folded[alias] = f"{alias}: TypeAlias = {annotated}"
        for name, statement in places:
            folded[name] = folded[name].replace(statement, f"    {field}: {alias}", 1)
    return folded


_REF = "#/components/schemas/"


def _plain(title: str) -> str:
    """``One[LockAttributes]`` -> ``OneLockAttributes`` (what the class is called)."""
    return re.sub(r"\W", "", title)


def _refs(node: Any) -> set[str]:
    """The components a schema names directly."""
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF):
            found.add(ref[len(_REF) :])
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for item in node:
            found |= _refs(item)
    return found


def public_names(schemas: dict[str, Any]) -> dict[str, str]:
    """Component key -> the class name the SDK gives it: the schema's title (the server's class
    name, ``One[LockAttributes]`` written ``OneLockAttributes``), never pydantic's module-path
    key (``api__routes__territory__Totals``). When two server classes share a name, each gets
    its module's last part in front (``TerritoryTotals``, ``MiningStatsTotals``); a generic
    model over such a class is named after the one it holds (``OneFragmentConfigAttributes``).
    A clash nothing can tell apart is an error: rename one of the server's classes."""
    titles = {key: _plain(str(schema.get("title") or key)) for key, schema in schemas.items()}
    generic = {key for key, schema in schemas.items() if "[" in str(schema.get("title", ""))}
    clashing: dict[str, list[str]] = {}
    for key, title in titles.items():
        clashing.setdefault(title, []).append(key)
    names: dict[str, str] = {}
    for key in titles.keys() - generic:  # a plain class: its module tells clashing ones apart
        module = key.split("__")[:-1]
        if len(clashing[titles[key]]) > 1 and module:
            words = module[-1].split("_")
            names[key] = "".join(w[:1].upper() + w[1:] for w in words) + titles[key]
        else:
            names[key] = titles[key]

    def reachable(key: str, seen: set[str]) -> set[str]:
        out: set[str] = set()
        for ref in _refs(schemas[key]):
            if ref in schemas and ref not in seen:
                out |= {ref} | reachable(ref, seen | {ref})
        return out

    for key in generic:  # a generic class is named after the classes it holds
        title = str(schemas[key]["title"])
        name = title
        for param in set(re.findall(r"\w+", title.partition("[")[2])):
            held = {names[r] for r in reachable(key, {key}) if titles[r] == param and r in names}
            if len(held) == 1:
                name = re.sub(rf"\b{param}\b", held.pop(), name)
        names[key] = _plain(name)
    taken: dict[str, str] = {}
    for key, name in sorted(names.items()):
        if name in taken:
            raise ValueError(f"components {taken[name]} and {key} would both be {name}")
        taken[name] = key
    return names


def rename_components(spec: dict[str, Any]) -> None:
    """Give every component its public name (``public_names``), in place: keys, titles, refs."""
    schemas = spec["components"]["schemas"]
    names = public_names(schemas)
    text = json.dumps(spec)
    for key, name in names.items():
        text = text.replace(f'"{_REF}{key}"', f'"{_REF}{name}"')
    renamed = json.loads(text)
    spec["paths"] = renamed["paths"]
    spec["components"]["schemas"] = {
        names[key]: {**schema, "title": names[key]}
        for key, schema in renamed["components"]["schemas"].items()
    }
