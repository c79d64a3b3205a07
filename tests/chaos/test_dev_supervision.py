"""`mccgw dev` supervises its services as it does the API and the worker: the chain node, the
Temporal server, Redis, PostgreSQL, the worker and the API, each killed with -9, are started
again and /readyz answers 200 once more (before: a killed chain node left /readyz at 503
"chain down"). On the stack the quickstart and the console's tests share, after them."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil
import pytest

from tests.shared_stacks import DevStack
from tests.test_dev_stack import _Stack

pytestmark = pytest.mark.slow


def _find(state: Path, marker: str) -> Callable[[], int]:
    def pid() -> int:
        for p in psutil.process_iter(["pid", "cmdline"]):
            cmdline = " ".join(p.info["cmdline"] or [])
            if str(state) in cmdline and marker in cmdline:
                return int(p.info["pid"])
        raise AssertionError(f"no process {marker!r} of the stack")

    return pid


def _child(stack: _Stack, marker: str) -> Callable[[], int]:
    """A process `mccgw dev` started itself (the worker, the API)."""

    def pid() -> int:
        for p in psutil.Process(stack.proc.pid).children():
            try:
                if marker in " ".join(p.cmdline()):
                    return p.pid
            except psutil.Error:  # a killed one, until it is reaped
                continue
        raise AssertionError(f"no process {marker!r} of the stack")

    return pid


def _postmaster(state: Path) -> Callable[[], int]:
    return lambda: int((state / "pg" / "postmaster.pid").read_text().split()[0])


def _ready(base_url: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base_url}/readyz", timeout=3).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


@pytest.mark.dev_stack_last  # it kills every service of the shared stack
def test_dev_restarts_each_killed_service(shared_dev_stack: DevStack) -> None:
    stack, base_url = shared_dev_stack.stack, shared_dev_stack.base_url
    state = shared_dev_stack.state_dir.resolve()
    services = {
        "chain node": _find(state, "devchain.node"),
        "Temporal": _find(state, "start-dev"),
        "Redis": _find(state, "redis-server"),
        "PostgreSQL": _postmaster(state),
        "worker": _child(stack, "-m worker"),
        "api": _child(stack, "api.main:app"),
    }
    assert _ready(base_url, 60), stack.output[-3000:]
    for name, pid_of in services.items():
        before = pid_of()
        os.kill(before, signal.SIGKILL)
        deadline = time.monotonic() + 120
        while f"{name} restarted" not in stack.output and time.monotonic() < deadline:
            time.sleep(0.2)  # the API stays ready while the worker is down
        assert f"{name} restarted" in stack.output, stack.output[-3000:]
        assert _ready(base_url, 120), f"{name} killed: not ready again\n{stack.output[-3000:]}"
        assert pid_of() != before, name
    # What the services said while killed is no fault of theirs; the stop after is checked
    # (the shared stack's teardown: Ctrl-C, every service down, no traceback).
    shared_dev_stack.checked = len(stack.lines)
