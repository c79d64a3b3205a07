"""The API as a contract (docs/versioning.md): openapi.json is what the app serves, passes the
rule set (Redocly CLI, redocly.yaml) and breaks nothing of the last released document (Optic's
breaking-changes ruleset, contract/released/); a breaking change fails unless the major version
changes, an additive one passes. The tools come from contract/package-lock.json (``npm ci``,
kept in contract/node_modules between runs); without Node this is skipped locally and fails
under CI, as the TypeScript SDK's tests."""

from __future__ import annotations

import copy
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from mccgw import contract
from mccgw.contract import Version, render
from tests.sdk.test_typescript import installed_npm

TODAY = date(2026, 12, 1)
CHANGELOG = "## [1.1.0] - unreleased\n- x\n## [1.0.0] - 2026-11-28\n## [2.0.0] - unreleased\n"


@pytest.fixture(scope="module")
def tools() -> None:
    installed_npm(required=True, package=contract.TOOLS)


@pytest.fixture(scope="module")
def released() -> dict[str, Any]:
    return contract.load(contract.released_path(1))


def _excerpt(document: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    """One operation of ``document`` with the components it refers to (a small document keeps
    each of Optic's runs below a few seconds)."""
    found = copy.deepcopy(document)
    found["paths"] = {path: {method: found["paths"][path][method]}}
    schemas, wanted, seen = found["components"]["schemas"], [found["paths"]], set()
    while wanted:
        node = wanted.pop()
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            name = ref.removeprefix("#/components/schemas/")
            if ref and name not in seen:
                seen.add(name)
                wanted.append(schemas[name])
            wanted.extend(node.values())
        elif isinstance(node, list):
            wanted.extend(node)
    found["components"]["schemas"] = {k: v for k, v in schemas.items() if k in seen}
    used = {name for need in found["paths"][path][method].get("security", []) for name in need}
    schemes = found["components"]["securitySchemes"]
    found["components"]["securitySchemes"] = {k: v for k, v in schemes.items() if k in used}
    return found


BALANCE = ("/v1/mcd/balance", "get")


def _balance(document: dict[str, Any]) -> dict[str, Any]:
    return document["components"]["schemas"]["McdBalanceAttributes"]


def _renamed_required(document: dict[str, Any]) -> dict[str, Any]:
    """A copy whose MCD balance answer calls its required ``total_balance`` ``balance``."""
    found = copy.deepcopy(document)
    schema = _balance(found)
    schema["properties"]["balance"] = schema["properties"].pop("total_balance")
    schema["required"] = ["balance" if r == "total_balance" else r for r in schema["required"]]
    return found


def _added(document: dict[str, Any]) -> dict[str, Any]:
    """A copy with an optional field more in the same answer."""
    found = copy.deepcopy(document)
    _balance(found)["properties"]["pending_in"] = {"type": "string", "title": "Pending In"}
    return found


def _write(tmp_path: Path, name: str, document: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(render(document))
    return path


def test_openapi_json_is_what_the_app_serves() -> None:
    problem = contract.stale()
    assert problem is None, problem


def test_openapi_json_holds_as_a_contract(tools: None) -> None:
    """Lint, deprecation notices, version rules and no breaking change against the released
    document: what `make openapi-check` prints, each problem with its fix."""
    problems = contract.check()
    assert not problems, "\n\n".join(problems)


def test_a_breaking_change_fails_unless_the_major_version_changes(
    tools: None, released: dict[str, Any], tmp_path: Path
) -> None:
    base = _excerpt(released, *BALANCE)
    head = _excerpt(contract.load(contract.DOCUMENT), *BALANCE)
    renamed = _renamed_required(head)
    major = copy.deepcopy(renamed)
    major["info"]["version"] = "2.0.0"
    # One at a time: Optic's runs share its configuration directory.
    copies = {"same": head, "renamed": renamed, "major": major, "added": _added(head)}
    same, broken, new_major, added = (
        contract.breaking(base, _write(tmp_path, f"{n}.json", d), TODAY) for n, d in copies.items()
    )
    assert same.ok, same.report
    assert not broken.ok
    assert "cannot remove response property 'total_balance'" in broken.report, broken.report
    assert new_major.ok, new_major.report  # 2.0.0 may break 1.x
    assert added.ok, added.report  # an optional field more breaks nothing


def test_the_whole_check_refuses_a_renamed_required_field(
    tools: None, released: dict[str, Any], tmp_path: Path
) -> None:
    """``check`` (what make test runs on openapi.json) on a copy: the breaking change is
    refused with what to do about it; the additive copy holds."""
    (tmp_path / "released").mkdir()
    _write(tmp_path / "released", "v1.json", _excerpt(released, *BALANCE))
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(CHANGELOG)
    head = _excerpt(contract.load(contract.DOCUMENT), *BALANCE)
    renamed = _write(tmp_path, "renamed.json", _renamed_required(head))
    added = _write(tmp_path, "added.json", _added(head))
    refused = contract.check(renamed, changelog, tmp_path / "released")
    assert len(refused) == 1 and "a breaking change against the released 1.0.0" in refused[0]
    assert 'DOCUMENT_VERSION = "2.0.0"' in refused[0]
    assert contract.check(added, changelog, tmp_path / "released") == []


def test_the_version_rules_say_what_to_bump(released: dict[str, Any]) -> None:
    additive = _added(released)
    problems = contract.version_problems(additive, released, "")
    assert problems == [
        "CHANGELOG.md has no section for 1.0.0: add `## [1.0.0] - unreleased` with a line per "
        "change (docs/versioning.md)",
        "openapi.json differs from the released 1.0.0 by an additive change (a new operation, "
        'an optional field, a new response field): set DOCUMENT_VERSION = "1.1.0" in '
        "api/versions.py, add `## [1.1.0] - unreleased` to CHANGELOG.md, then run "
        "`make openapi`",
    ]
    additive["info"]["version"] = "1.1.0"
    assert contract.version_problems(additive, released, CHANGELOG) == []
    # Once 1.1.0 is the next version, later additions need no bump until it is released.
    more = _added(additive)
    more["paths"]["/v1/new"] = {"get": {"responses": {"200": {"description": "ok"}}}}
    assert contract.version_problems(more, released, CHANGELOG) == []
    # Only a text changed: a patch.
    texts = copy.deepcopy(released)
    texts["info"]["description"] += " More."
    assert "1.0.1" in contract.version_problems(texts, released, CHANGELOG)[0]
    older = copy.deepcopy(released)
    older["info"]["version"] = "0.9.0"
    assert contract.version_problems(older, released, "## [0.9.0]")[0].endswith(
        "older than the released 1.0.0"
    )
    assert Version.parse("1.10.0") > Version.parse("1.9.3")
    with pytest.raises(ValueError, match="SemVer"):
        Version.parse("1.0")


def test_a_sunset_operation_may_go_and_a_deprecation_needs_its_notice(
    released: dict[str, Any],
) -> None:
    document = _excerpt(released, *BALANCE)
    operation = document["paths"][BALANCE[0]][BALANCE[1]]
    operation["deprecated"] = True
    assert "without its notice" in contract.deprecation_problems(document)[0]
    operation.update({"x-deprecated-since": "2026-01-01", "x-sunset": "2026-06-01"})
    assert "12 months" in contract.deprecation_problems(document)[0]
    operation["x-sunset"] = "2027-01-01"
    assert contract.deprecation_problems(document) == []
    # Before its sunset the operation stays in the comparison; after it, it may be removed.
    assert contract.past_sunset(document, date(2026, 12, 31))["paths"][BALANCE[0]]
    assert contract.past_sunset(document, date(2027, 1, 2))["paths"][BALANCE[0]] == {}
