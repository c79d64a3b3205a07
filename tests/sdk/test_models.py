"""The SDKs' generated modules (Python and TypeScript) are current with the app's OpenAPI, and
typed calls work.

After adding or changing a route: ``make sdk-models`` and commit the files it rewrites.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import httpx
import pydantic
import pytest
from fastapi import FastAPI
from mccgw_client import ApiKeyAuth, AsyncClient, models, operations
from mccgw_client.errors import ValidationError

from mccgw.sdkfold import public_names
from mccgw.sdkgen import (
    SDK_PACKAGE,
    TS_FILES,
    TS_GENERATED,
    generate,
    generated_files,
    openapi_document,
)
from tests.sdk.conftest import BASE, Consented


def test_checked_in_models_match_a_fresh_generation(tmp_path: Path) -> None:
    generate(tmp_path, tmp_path / "ts")
    names = [p.name for p in generated_files(tmp_path)]
    assert names == [p.name for p in generated_files(SDK_PACKAGE)], "run `make sdk-models`"
    pairs = [(tmp_path / n, SDK_PACKAGE / n) for n in names]
    pairs += [(tmp_path / "ts" / n, TS_GENERATED / n) for n in TS_FILES]
    for fresh_path, checked_in_path in pairs:
        name = str(checked_in_path.relative_to(SDK_PACKAGE.parents[2]))
        fresh = fresh_path.read_text()
        checked_in = checked_in_path.read_text()
        if fresh != checked_in:
            diff = "".join(
                list(
                    difflib.unified_diff(
                        checked_in.splitlines(True), fresh.splitlines(True), name, "generated"
                    )
                )[:60]
            )
            pytest.fail(f"{name} is stale: run `make sdk-models` and commit it.\n{diff}")


def test_the_sdk_names_models_by_their_public_names() -> None:
    """No server module path in a public name (``ApiRoutesTerritoryTotals``): a class is named
    after its server class; two of one name are told apart by their module's last part."""
    spec = openapi_document()
    keys = spec["components"]["schemas"]
    module_paths = {
        "".join(w.title() for w in "_".join(key.split("__")[:-1]).split("_"))
        for key in keys
        if "__" in key
    }
    public = [name for name in dir(models) if name[:1].isupper()]
    leaked = [n for n in public for path in module_paths if n.startswith(path)]
    assert not leaked
    for key, schema in keys.items():
        if "__" not in key and "[" not in str(schema.get("title")):
            assert hasattr(models, key), key  # a unique server class keeps its own name


def test_models_accept_fields_a_later_gateway_adds() -> None:
    """The gateway's own models forbid extra fields; the SDK's must not (an old client keeps
    working when an answer grows), and a success of another shape is parsed as its own model."""
    classes = [c for c in vars(models).values() if isinstance(c, type)]
    shaped = [c for c in classes if issubclass(c, models.BaseModel) and c.model_fields]
    assert len(shaped) > 100
    assert {c.model_config.get("extra") for c in shaped} == {"allow"}
    approve = operations.approve
    assert approve.response_for(200) is models.OneApprovedApplicationAttributes
    assert approve.response_for(202) is models.OneApplicationAttributes


def test_public_names_tell_clashing_classes_apart() -> None:
    totals = {"type": "object", "properties": {"n": {"type": "integer"}}, "title": "Totals"}
    schemas = {
        "api__routes__territory__Totals": totals,
        "api__routes__mining_stats__Totals": totals,
        "api__typed__One_Totals___1": {
            "title": "One[Totals]",
            "properties": {"data": {"$ref": "#/components/schemas/api__routes__territory__Totals"}},
        },
        "One_LockAttributes_": {"title": "One[LockAttributes]"},
        "LockIn": {"title": "LockIn"},
    }
    assert public_names(schemas) == {
        "api__routes__territory__Totals": "TerritoryTotals",
        "api__routes__mining_stats__Totals": "MiningStatsTotals",
        "api__typed__One_Totals___1": "OneTerritoryTotals",
        "One_LockAttributes_": "OneLockAttributes",
        "LockIn": "LockIn",
    }
    same = {"a__X": {"title": "X"}, "b__a__X": {"title": "X"}}
    with pytest.raises(ValueError, match="would both be"):
        public_names(same)


def test_every_route_has_an_operation() -> None:
    spec = openapi_document()
    routes = {
        (method.upper(), path)
        for path, methods in spec["paths"].items()
        if not path.startswith("/api/open/")
        for method in methods
    }
    ops = operations.OPERATIONS.values()
    assert {(op.method, op.path) for op in ops} == routes
    for op in ops:
        body = spec["paths"][op.path][op.method.lower()].get("requestBody")
        json_body = body and "application/json" in body.get("content", {})
        assert (op.request is not None) == bool(json_body), op.name
    assert operations.lock_funds.request is models.LockIn
    assert operations.get_transfer.path_params == ["transfer_id"]


async def test_typed_call(app: FastAPI, consented: Consented) -> None:
    creds = consented.creds
    async with AsyncClient(
        BASE, ApiKeyAuth(creds.project_id, creds.secret), transport=httpx.ASGITransport(app=app)
    ) as gw:
        envelope = await gw.call(
            operations.report_attribute,
            path_params={"uid": consented.uid},
            body=models.AttributeIn(attribute_key="level", attribute_value={"rank": "gold"}),
        )
        assert isinstance(envelope, models.OneProjectAttributeAttributes)
        assert envelope.meta is not None and envelope.meta.request_id
        # A body that breaks the model is refused before anything is sent.
        with pytest.raises(pydantic.ValidationError, match="attribute_key"):
            await gw.call(
                operations.report_attribute,
                path_params={"uid": consented.uid},
                body={"attribute_value": 1},
            )
        with pytest.raises(ValueError, match="uid"):
            await gw.call(
                operations.report_attribute, body={"attribute_key": "k", "attribute_value": 1}
            )
        # The gateway's own validation still answers typed.
        with pytest.raises(ValidationError):
            await gw.post(f"/v1/users/{consented.uid}/attributes", json={"attribute_key": ""})
