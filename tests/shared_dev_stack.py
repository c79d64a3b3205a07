"""One `mccgw dev` stack for the tests that drive a whole stack from outside, as a user does:
the quickstart page (tests/sdk/test_quickstart.py) and the console in a browser
(tests/console/test_console_browser.py). Starting one costs about 35 s, so they share it.

tests/conftest.py runs these tests one after another (the quickstart first: it meets the stack
as `make dev` leaves it) and stops the stack as soon as the last of them is done, so that an
idle stack does not take CPU from the rest of the suite. tests/test_dev_stack.py starts stacks
of its own on purpose (a fresh start, then a warm one) and does not use this one.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import psutil
import pytest

from core.embedded import free_port

if TYPE_CHECKING:
    from tests.test_dev_stack import _Stack

# The session fixture (tests/conftest.py) whose users share the stack.
FIXTURE = "shared_dev_stack"
# The users that must meet the stack first, before any other user has changed it.
FIRST_MARK = "dev_stack_first"


@dataclass
class DevStack:
    """A running `mccgw dev`: its process, state directory (``.dev``) and ports."""

    stack: _Stack
    state_dir: Path
    ports: dict[str, int]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['api']}"


class SharedDevStack:
    """Starts the stack when a test first asks for it; ``stop`` ends it (and a later test
    that asks again gets a fresh one)."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._running: DevStack | None = None
        self._checked = 0  # lines of the stack's output already checked

    def after(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        """After each test: a user of the stack left no traceback in its output (checked per
        test, so that the test that caused one is named); after the last user, stop it."""
        if FIXTURE not in getattr(item, "fixturenames", ()):
            return
        try:
            if self._running is not None:
                lines = self._running.stack.lines[self._checked :]
                self._checked += len(lines)
                new = "".join(lines)
                assert "Traceback" not in new, new
        finally:
            if nextitem is None or FIXTURE not in getattr(nextitem, "fixturenames", ()):
                self.stop()

    def running(self) -> DevStack:
        if self._running is None:
            self._running = self._start()
        return self._running

    def _start(self) -> DevStack:
        """`mccgw dev` on free ports; one more try on fresh ports and a fresh directory if
        the stack exits during start-up (a port taken between free_port() and its bind)."""
        from tests.test_dev_stack import _Stack

        # As root, pgserver runs postgres as user "pgserver": every user must reach the dir.
        self._root = Path(tempfile.mkdtemp(prefix="mccgw-devstack-"))
        self._root.chmod(0o755)
        for attempt in (1, 2):
            ports = {name: free_port() for name in ("api", "temporal", "ui", "rpc")}
            state_dir = self._root / f"dev{attempt}"
            stack = _Stack(state_dir, ports)
            running = DevStack(stack, state_dir, ports)
            try:
                stack.wait_ready(running.base_url)
            except pytest.fail.Exception:
                if attempt == 2 or stack.proc.poll() is None:
                    stack.kill()
                    raise
                continue
            return running
        raise AssertionError("unreachable")

    def stop(self) -> None:
        """Ctrl-C, as a user stops it (every service goes down with it); a paused process
        (the console test SIGSTOPs the chain node) is resumed first."""
        running, root = self._running, self._root
        self._running, self._root, self._checked = None, None, 0
        try:
            if running is not None and running.stack.proc.poll() is None:
                for p in psutil.Process(running.stack.proc.pid).children(recursive=True):
                    try:
                        if p.status() == psutil.STATUS_STOPPED:
                            p.resume()
                    except psutil.NoSuchProcess:
                        pass
                try:
                    out = running.stack.stop()
                    assert "Traceback" not in out, out
                finally:
                    running.stack.kill()
        finally:
            if root is not None:
                shutil.rmtree(root, ignore_errors=True)


def order_users(items: list[pytest.Item]) -> None:
    """Move the users of the shared stack next to each other, where the first of them was
    collected; those marked ``dev_stack_first`` first, the rest in collection order."""
    users = [item for item in items if FIXTURE in getattr(item, "fixturenames", ())]
    if not users:
        return
    first = items.index(users[0])
    users.sort(key=lambda item: item.get_closest_marker(FIRST_MARK) is None)
    chosen = {id(item) for item in users}
    rest = [item for item in items if id(item) not in chosen]
    items[:] = rest[:first] + users + rest[first:]
