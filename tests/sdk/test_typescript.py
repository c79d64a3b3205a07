"""The TypeScript SDK (sdk/typescript) under the suite: ``npm ci`` from its package-lock.json
(kept in sdk/typescript/node_modules between runs, reinstalled when the lock file changes), then
``npm test``: the build, the ``tsc --strict`` consumer, the unit tests (signature vectors of
docs/access.md and docs/webhooks.md, retries, typed problems, pages) and the live tests against
this suite's app served over a real socket (``live_url``), with a project and a user who
authorized it. Without Node it is skipped locally and fails under CI (CI=true)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.sdk.conftest import Consented

PACKAGE = Path(__file__).resolve().parents[2] / "sdk" / "typescript"


def installed_npm(required: bool = True, package: Path = PACKAGE) -> str | None:
    """npm, with ``package``'s dependencies installed from its lock file (the TypeScript SDK
    by default). Without node: a failure under CI, else a skip (or None when not
    ``required``)."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if not (npm and node):
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"node and npm are needed to test {package.name} (CI installs them)")
        if required:
            pytest.skip(f"node/npm not installed: {package.name} is not tested here")
        return None
    lock = hashlib.sha256((package / "package-lock.json").read_bytes()).hexdigest()
    stamp = package / "node_modules" / ".mccgw-lock"
    if not (stamp.exists() and stamp.read_text() == lock):  # npm ci unless node_modules is it
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=package,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        stamp.write_text(lock)
    return npm


async def test_typescript_sdk(live_url: str, consented: Consented) -> None:
    npm = await asyncio.to_thread(installed_npm)
    assert npm is not None
    env = {
        **os.environ,
        "MCCGW_BASE_URL": live_url,
        "MCCGW_PROJECT_ID": str(consented.creds.project_id),
        "MCCGW_API_SECRET": consented.creds.secret,
        "MCCGW_USER_UID": consented.uid,
    }
    done = await asyncio.to_thread(
        subprocess.run,
        [npm, "test"],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert re.search(r"\bfail 0\n", report) and re.search(r"\bskipped 0\n", report), report
