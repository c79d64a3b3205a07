"""The API as a contract (docs/versioning.md): ``openapi.json`` at the repository's root is
the document the app serves, linted under ``redocly.yaml`` and checked for breaking changes
against the last released document of its major (``contract/released/v<major>.json``).

    make openapi           # = python -m mccgw.contract write: openapi.json from the app
    make openapi-check     # = python -m mccgw.contract check: what make test checks
    make openapi-release   # = python -m mccgw.contract release: openapi.json becomes released

The tools are Node packages pinned in ``contract/package-lock.json`` (``npm ci`` in
``contract/``): Redocly CLI lints, Optic's ``breaking-changes`` ruleset compares (its
``skip_when_major_version_changes``: a new major may break). The version rules, on top:

- the document differs in shape (paths, schemas, parameters) from the released one: its
  ``info.version`` must be a newer minor (or major); only texts changed: a newer patch;
- the version has its section in ``CHANGELOG.md``;
- a deprecated operation names its sunset, 12 months or more after its notice; an operation
  whose sunset has passed may be removed without a new major.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "openapi.json"
CHANGELOG = ROOT / "CHANGELOG.md"
RULES = ROOT / "redocly.yaml"
TOOLS = ROOT / "contract"
RELEASED = TOOLS / "released"
STANDARD = TOOLS / "optic.yml"
VERSION_SOURCE = "api/versions.py"
REGENERATE = "make openapi"
# The tools' own telemetry and update notices stay off (no network but the registries here);
# Optic reads ENVIRONMENT=test (make test's) as "print nothing", LOG_LEVEL as its own, and CI as
# "write a CI report and ask git for the remote": none of ours is passed on.
QUIET = {
    "OPTIC_TELEMETRY_LEVEL": "off",
    "REDOCLY_TELEMETRY": "off",
    "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    "NO_COLOR": "1",
    "LOG_LEVEL": "info",
}
_NOT_PASSED = frozenset({"ENVIRONMENT", "LOG_LEVEL", "CI"})
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
# Keys that only carry text: a change of them alone is a patch.
_TEXT_KEYS = frozenset({"description", "summary", "title", "examples", "example"})
_METHODS = frozenset({"get", "put", "post", "delete", "patch", "head", "options", "trace"})


def served() -> dict[str, Any]:
    """The document the app serves at /openapi.json."""
    from mccgw.sdkgen import openapi_document

    return openapi_document()


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def load(path: Path) -> dict[str, Any]:
    found = json.loads(path.read_text())
    assert isinstance(found, dict), path
    return found


def write(path: Path = DOCUMENT) -> Path:
    path.write_text(render(served()))
    return path


def stale(path: Path = DOCUMENT) -> str | None:
    """None when ``path`` is what the app serves; else what differs, and the fix."""
    fresh = render(served())
    current = path.read_text() if path.exists() else ""
    if fresh == current:
        return None
    diff = difflib.unified_diff(
        current.splitlines(True), fresh.splitlines(True), path.name, "served"
    )
    shown = "".join(list(diff)[:80])
    return f"{path.name} is not what the app serves: run `{REGENERATE}` and commit it.\n{shown}"


# -- versions -------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version:
        found = _SEMVER.match(text)
        if found is None:
            raise ValueError(f"info.version {text!r} is not MAJOR.MINOR.PATCH (SemVer 2.0.0)")
        return cls(*(int(part) for part in found.groups()))

    @classmethod
    def of(cls, document: dict[str, Any]) -> Version:
        return cls.parse(str(document["info"]["version"]))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def released_path(major: int) -> Path:
    return RELEASED / f"v{major}.json"


def last_released(current: Version, released: Path = RELEASED) -> Path | None:
    """The released document the current one answers to: its own major's, else the newest
    major below it (a new major's first release answers to the major it replaces)."""
    majors = sorted(int(p.stem[1:]) for p in released.glob("v*.json") if p.stem[1:].isdigit())
    below = [m for m in majors if m <= current.major]
    return released / f"v{below[-1]}.json" if below else None


def _shape(node: Any) -> Any:
    """The document without its texts: what clients' code depends on."""
    if isinstance(node, dict):
        return {k: _shape(v) for k, v in node.items() if k not in _TEXT_KEYS}
    if isinstance(node, list):
        return [_shape(v) for v in node]
    return node


def _without_version(document: dict[str, Any]) -> dict[str, Any]:
    found = copy.deepcopy(document)
    found["info"].pop("version", None)
    return found


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document.get("paths", {}).items()
        for method, operation in item.items()
        if method in _METHODS and isinstance(operation, dict)
    ]


def deprecation_problems(document: dict[str, Any]) -> list[str]:
    from api.versions import Deprecation

    found = []
    for method, path, operation in _operations(document):
        if not operation.get("deprecated"):
            continue
        try:
            notice = Deprecation.of(operation)
        except ValueError as exc:
            found.append(f"{method.upper()} {path}: {exc}")
            continue
        if notice is None:
            found.append(
                f"{method.upper()} {path} is deprecated without its notice: declare it with "
                "`**deprecated(since=..., sunset=...)` (api/versions.py)"
            )
    return found


def past_sunset(document: dict[str, Any], today: date) -> dict[str, Any]:
    """``document`` without the operations whose sunset has passed: removing those is no
    breaking change (their users were told 12 months before)."""
    found = copy.deepcopy(document)
    for method, path, operation in _operations(document):
        sunset = operation.get("x-sunset")
        if operation.get("deprecated") and sunset and date.fromisoformat(sunset) < today:
            del found["paths"][path][method]
    return found


def version_problems(
    current: dict[str, Any], released: dict[str, Any] | None, changelog: str
) -> list[str]:
    """What the version rules refuse in ``current`` against the last ``released``; each
    problem says exactly what to change."""
    try:
        version = Version.of(current)
    except ValueError as exc:
        return [str(exc)]
    problems = []
    heading = re.compile(rf"^## \[?{re.escape(str(version))}\]?(\s|$)", re.MULTILINE)
    if not heading.search(changelog):
        problems.append(
            f"CHANGELOG.md has no section for {version}: add `## [{version}] - unreleased` "
            "with a line per change (docs/versioning.md)"
        )
    if released is None:
        return problems
    was = Version.of(released)
    if version < was:
        return [*problems, f"info.version {version} is older than the released {was}"]
    if version.major > was.major:
        return problems  # a new major may change anything
    if _without_version(current) == _without_version(released):
        return problems
    if _shape(current) != _shape(released):
        need = Version(was.major, was.minor + 1, 0)
        kind = "an additive change (a new operation, an optional field, a new response field)"
        if version.minor <= was.minor:
            problems.append(
                f"openapi.json differs from the released {was} by {kind}: set "
                f'DOCUMENT_VERSION = "{need}" in {VERSION_SOURCE}, add '
                f"`## [{need}] - unreleased` to CHANGELOG.md, then run `{REGENERATE}`"
            )
    elif version == was:
        need = Version(was.major, was.minor, was.patch + 1)
        problems.append(
            f"openapi.json's texts differ from the released {was}: set "
            f'DOCUMENT_VERSION = "{need}" in {VERSION_SOURCE}, add its CHANGELOG.md section, '
            f"then run `{REGENERATE}`"
        )
    return problems


# -- the tools ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    ok: bool
    report: str


def _tool(name: str) -> str:
    path = TOOLS / "node_modules" / ".bin" / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `npm ci` in {TOOLS} (make openapi-tools)")
    return str(path)


def _run(args: list[str], timeout: float = 300) -> Outcome:
    done = subprocess.run(
        args,
        cwd=ROOT,
        env={**{k: v for k, v in os.environ.items() if k not in _NOT_PASSED}, **QUIET},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Outcome(done.returncode == 0, done.stdout + done.stderr)


def lint(path: Path = DOCUMENT) -> Outcome:
    """Redocly CLI under the committed rule set (redocly.yaml)."""
    args = [_tool("redocly"), "lint", "--config", str(RULES), "--format", "stylish"]
    return _run([*args, str(path)])


def breaking(base: dict[str, Any], head: Path, today: date | None = None) -> Outcome:
    """Optic's breaking-changes ruleset from ``base`` (the released document, less what is
    past its sunset) to ``head``; a new major in ``head`` is let through by Optic itself."""
    today = today or datetime.now(UTC).date()
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "released.json"
        before.write_text(render(past_sunset(base, today)))
        args = [_tool("optic"), "diff", str(before), str(head), "--check"]
        return _run([*args, "--standard", str(STANDARD)])


def check(
    path: Path = DOCUMENT, changelog: Path = CHANGELOG, released: Path = RELEASED
) -> list[str]:
    """Every problem of the document at ``path`` as a contract (empty: it holds): the rule set,
    the deprecation notices, the version rules and no breaking change against the released
    document of its major. Does not compare it with the app (``stale`` does)."""
    document = load(path)
    problems = []
    linted = lint(path)
    if not linted.ok:
        problems.append(f"redocly lint (redocly.yaml) refuses {path.name}:\n{linted.report}")
    problems += deprecation_problems(document)
    try:
        base_path = last_released(Version.of(document), released)
    except ValueError as exc:
        return [*problems, str(exc)]
    base = None if base_path is None else load(base_path)
    problems += version_problems(document, base, changelog.read_text())
    if base is not None and base_path is not None:
        diff = breaking(base, path)
        if not diff.ok:
            was = Version.of(base)
            problems.append(
                f"a breaking change against the released {was} ({base_path.name}): make it "
                "additive (a new operation or optional field; deprecate the old one, "
                "docs/versioning.md), or, for a new major, set DOCUMENT_VERSION = "
                f'"{was.major + 1}.0.0" in {VERSION_SOURCE} and run `{REGENERATE}`.\n'
                f"{diff.report}"
            )
    return problems


def release(path: Path = DOCUMENT, changelog: Path = CHANGELOG, today: date | None = None) -> Path:
    """Release the document at ``path``: it becomes ``contract/released/v<major>.json`` and its
    CHANGELOG.md section gets today's date. Refuses a document that does not pass ``check``."""
    problems = check(path, changelog)
    if problems:
        raise SystemExit("not released:\n" + "\n".join(problems))
    document = load(path)
    version = Version.of(document)
    target = released_path(version.major)
    target.write_text(render(document))
    day = (today or datetime.now(UTC).date()).isoformat()
    text = re.sub(
        rf"^## \[{re.escape(str(version))}\] - unreleased$",
        f"## [{version}] - {day}",
        changelog.read_text(),
        flags=re.MULTILINE,
    )
    changelog.write_text(text)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mccgw.contract", description=__doc__)
    parser.add_argument("command", choices=("write", "check", "release"))
    args = parser.parse_args(argv)
    if args.command == "write":
        print(f"wrote {write().relative_to(ROOT)}")
        return 0
    if args.command == "release":
        print(f"released {release().relative_to(ROOT)}")
        return 0
    problems = [p for p in [stale()] if p] + check()
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print("openapi.json holds as a contract")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
