"""docs/quickstart.md, run block by block against `mccgw dev` (as a new developer runs it: the
stack is fresh, shared afterwards with the console's browser test, tests/shared_stacks.py).

The page's tagged blocks (``<!-- quickstart: NAME -->``) are executed in order: the shell block
with bash in a directory that looks like the repository root (``.dev`` is this stack's state
directory, ``.venv`` the repository's), the Python blocks in one namespace, as one script, each
step's outcome checked; then the TypeScript blocks as one ES module (compiled by the SDK's own
tsc, importing ``@mccgw/client``) on the same stack, its printed outcomes checked. The only
change made to the page's text: the stack's API port instead of 8000.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import traversable_tmp
from tests.sdk.test_typescript import PACKAGE, installed_npm
from tests.shared_stacks import DevStack

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "quickstart.md"
BLOCK = re.compile(
    r"<!-- quickstart: (?P<name>[\w-]+) -->\n```(?P<lang>\w+)\n(?P<code>.*?)\n```", re.DOTALL
)
STEPS = ["tokens", "apply", "approve", "first-call", "receiver", "consent", "lock", "transfer",
         "webhooks", "withdraw"]  # fmt: skip


def blocks() -> list[tuple[str, str, str]]:
    return [(m["name"], m["lang"], m["code"]) for m in BLOCK.finditer(DOC.read_text())]


def test_the_page_has_every_step_in_order() -> None:
    """The shell step, then each step in Python and TypeScript side by side."""
    found = [(name, lang) for name, lang, _ in blocks()]
    assert found == [("tokens", "sh")] + [(s, lang) for s in STEPS[1:] for lang in ("python", "ts")]


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A directory shaped like the repository root, as the page assumes."""
    root = traversable_tmp("mccgw-quickstart-")
    (root / ".venv").symlink_to(ROOT / ".venv")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _shell_step(code: str, cwd: Path) -> dict[str, str]:
    """Run a shell block with bash; the environment it exports."""
    out = cwd / "env.out"
    script = f"set -euo pipefail\n{code}\nenv -0 > {out}\n"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_URL")}
    done = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    pairs = (item.split("=", 1) for item in out.read_text().split("\0") if "=" in item)
    return dict(pairs) | {"_stderr": done.stderr}


@pytest.mark.dev_stack_first  # the stack as `make dev` leaves it, before the console's test
def test_quickstart_end_to_end(
    workdir: Path, shared_dev_stack: DevStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    namespace: dict[str, Any] = {"__name__": "quickstart"}
    stack = shared_dev_stack
    try:
        (workdir / ".dev").symlink_to(stack.state_dir)
        monkeypatch.chdir(workdir)
        page = {name: (lang, code.replace("http://127.0.0.1:8000", stack.base_url))
                for name, lang, code in blocks() if lang != "ts"}  # fmt: skip

        def run(name: str) -> None:
            lang, code = page[name]
            if lang == "sh":
                exported = _shell_step(code, workdir)
                for var in ("MCCGW_BASE_URL", "DEV_TOKEN", "ADMIN_TOKEN", "ALICE_TOKEN"):
                    assert exported.get(var), f"{name} exports {var}: {exported['_stderr']}"
                    monkeypatch.setenv(var, exported[var])
            else:
                exec(compile(code, f"docs/quickstart.md:{name}", "exec"), namespace)

        for name in page:
            run(name)
            _check(name, namespace)
        npm = installed_npm(required=False)
        if npm is None:
            pytest.skip("the Python blocks passed; no node here for the TypeScript ones")
        _typescript(npm, workdir)
    finally:
        if "receiver" in namespace:  # the page's webhook receiver, if the run got that far
            namespace["receiver"].shutdown()
            namespace["receiver"].server_close()


def _check(step: str, ns: dict[str, Any]) -> None:
    """What each step must have achieved (beyond not raising)."""
    if step == "apply":
        assert ns["application"].attributes.status == "pending"
    elif step == "approve":
        assert ns["approved"].status == "approved" and ns["approved"].whitelist_pda
        assert ns["API_SECRET"].startswith("sk_")
    elif step == "first-call":
        assert ns["first_page"].meta.total == 0
    elif step == "receiver":
        assert ns["endpoint"].attributes.url.startswith("http://127.0.0.1:")
    elif step == "lock":
        assert ns["lock"].attributes.status == "locked"
    elif step == "transfer":
        assert ns["status"] == "completed"
    elif step == "webhooks":
        kinds = {e.type for e in ns["received"].values()}
        assert {"funds.locked", "transfer.completed"} <= kinds, kinds
    elif step == "withdraw":
        done = ns["withdrawal"].attributes
        assert done.status == "completed" and done.tx_signature, done
        assert done.wallet_address == ns["demo"]["users"][0]["wallet_address"]
        assert float(ns["wallet"].attributes.total_balance) >= 5


def _typescript(npm: str, workdir: Path) -> None:
    """The TypeScript blocks as one module (in the package, so that ``@mccgw/client`` resolves
    to the SDK just built), run with node from the repository-shaped directory."""
    script_dir = PACKAGE / "build" / "quickstart"
    script_dir.mkdir(parents=True, exist_ok=True)
    code = [code for _, lang, code in blocks() if lang == "ts"]
    (script_dir / "quickstart.ts").write_text("\n\n".join(code) + "\n")
    options = {"rootDir": ".", "outDir": "out", "declaration": False, "sourceMap": False}
    tsconfig = {"extends": "../../tsconfig.json", "compilerOptions": options}
    (script_dir / "tsconfig.json").write_text(json.dumps(tsconfig | {"include": ["quickstart.ts"]}))
    for step in (["run", "build"], ["exec", "--", "tsc", "-p", str(script_dir)]):
        done = subprocess.run(
            [npm, *step], cwd=PACKAGE, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(
        ["node", str(script_dir / "out" / "quickstart.js")],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"\S+ pending", lines[0]), lines
    assert any(re.fullmatch(r"approved \d+ \S+", line) for line in lines), lines
    assert re.fullmatch(r"lk_\S+ locked", next(x for x in lines if x.startswith("lk_"))), lines
    assert "completed" in lines, lines
    kinds = {line.split()[0] for line in lines if line.startswith(("funds.", "transfer."))}
    assert {"funds.locked", "transfer.completed"} <= kinds, lines
    withdrawn = next(x for x in lines if x.startswith("withdrawal ")).split()
    assert withdrawn[1] == "completed" and float(withdrawn[2]) >= 10, lines  # after Python's
