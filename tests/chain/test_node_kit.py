"""The local chain node from outside Python: the @solana/kit package in tests/chain/kit (from
the npm registry, installed with ``npm ci`` from its package-lock.json and kept in its
node_modules between runs) runs its node:test suite against a node of its own: a transfer
sent and confirmed through signatureSubscribe, its memo's log line through logsSubscribe, an
account subscription that sees the change, a v0 transaction through an address lookup table
read back, a wrapped-SOL account created, synced and closed, slot and root subscriptions.
Without Node it is skipped locally and fails under CI (CI=true)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from pathlib import Path

from core.embedded import free_port
from devchain.node.process import start_node
from tests.sdk.test_typescript import installed_npm

PACKAGE = Path(__file__).resolve().parent / "kit"


async def test_solana_kit_against_the_node(tmp_path: Path) -> None:
    npm = await asyncio.to_thread(installed_npm, True, PACKAGE)
    assert npm is not None
    node = await asyncio.to_thread(
        start_node,
        tmp_path / "chain",
        tmp_path / "keys",
        free_port(),
        slot_ms=50,
        fixtures=False,
        log_file=tmp_path / "node.log",
        ws_port=free_port(),
    )
    try:
        env = {**os.environ, "MCCGW_RPC_URL": node.url, "MCCGW_WS_URL": node.ws_url}
        done = await asyncio.to_thread(
            subprocess.run,
            [npm, "test"],
            cwd=PACKAGE,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        await asyncio.to_thread(node.stop)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report + (tmp_path / "node.log").read_text()[-5000:]
    assert re.search(r"\bpass 5\n", report) and re.search(r"\bfail 0\n", report), report
