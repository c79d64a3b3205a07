"""Whole stacks that some tests share, each stopped right after its last user instead of at the
session's end: idle, a stack still takes CPU from every test after it (an idle production
topology about 13% of a core, measured).

- ``shared_dev_stack`` (tests/conftest.py): one `mccgw dev`, for the tests that drive a whole
  stack from outside as a user does: the quickstart page (tests/sdk/test_quickstart.py) and the
  console in a browser (tests/console/test_console_browser.py), then the supervision test
  that kills each of its services (tests/chaos/test_dev_supervision.py). Starting one costs
  18-35 s here (with the load), stopping it 4-8 s, so they share it; the quickstart goes first
  (marked ``dev_stack_first``), so that it meets the stack as `make dev` leaves it, and the
  supervision test last (``dev_stack_last``).
  tests/test_dev_stack.py starts stacks of its own on purpose (a fresh start, then a warm one)
  and does not use this one.
- ``topology`` (tests/topology_fixtures.py): the production topology of the deploy and chaos
  tests.

tests/conftest.py runs each stack's users one after another (where the first of them was
collected) and, after the last, finishes the session fixture early: its teardown runs then, and
a later test that asked for it would get a fresh one.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil
import pytest

from core.embedded import free_port

if TYPE_CHECKING:
    from tests.test_dev_stack import _Stack

# The session fixtures released right after their last user.
RELEASED = ("shared_dev_stack", "topology")
# The users that must meet a shared stack first, before any other user has changed it; and
# those that must come last (they kill its services: tests/chaos/test_dev_supervision.py).
FIRST_MARK = "dev_stack_first"
LAST_MARK = "dev_stack_last"


def _uses(item: pytest.Item | None, name: str) -> bool:
    return item is not None and name in getattr(item, "fixturenames", ())


def order_users(items: list[pytest.Item]) -> None:
    """Move each released fixture's users next to each other, where the first of them was
    collected; those marked ``dev_stack_first`` first, those marked ``dev_stack_last`` last, the
    rest in collection order between them."""
    for name in RELEASED:
        users = [item for item in items if _uses(item, name)]
        if not users:
            continue
        first = items.index(users[0])
        users.sort(
            key=lambda item: (
                item.get_closest_marker(FIRST_MARK) is None,
                item.get_closest_marker(LAST_MARK) is not None,
            )
        )
        chosen = {id(item) for item in users}
        rest = [item for item in items if id(item) not in chosen]
        items[:] = rest[:first] + users + rest[first:]


def _active(item: pytest.Item | None, name: str) -> pytest.FixtureDef[Any] | None:
    """The fixture ``name`` as ``item`` resolves it (a conftest below may define its own
    ``topology`` from the deploy tests' function), if ``item`` uses it."""
    info: Any = getattr(item, "_fixtureinfo", None)
    defs: Any = info.name2fixturedefs.get(name) if info is not None else None
    return defs[-1] if defs else None


def release_after(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After each test: a user of the shared `mccgw dev` left no traceback in its output
    (checked per user, so that the test that caused one is named); a released session fixture
    that the next test does not use is finished now (its teardown runs)."""
    errors: list[BaseException] = []
    for name in RELEASED:
        fixturedef = _active(item, name)
        if fixturedef is None or fixturedef.scope != "session" or not fixturedef.cached_result:
            continue
        value = fixturedef.cached_result[0]
        if isinstance(value, DevStack):
            try:
                value.check_quiet()
            except AssertionError as exc:
                errors.append(exc)
        if _active(nextitem, name) is not fixturedef:
            try:
                fixturedef.finish(getattr(item, "_request"))  # noqa: B009 (only its .node)
            except BaseException as exc:
                errors.append(exc)
    if errors:
        raise errors[0]


@dataclass
class DevStack:
    """A running `mccgw dev`: its process, state directory (``.dev``) and ports."""

    stack: _Stack
    state_dir: Path
    ports: dict[str, int]
    checked: int = 0  # lines of the stack's output already checked

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['api']}"

    def check_quiet(self) -> None:
        """No traceback in the stack's output since the last check."""
        lines = self.stack.lines[self.checked :]
        self.checked += len(lines)
        new = "".join(lines)
        assert "Traceback" not in new, new


def dev_stack() -> Iterator[DevStack]:
    """`mccgw dev` on free ports (one more try on fresh ports and a fresh directory if the
    stack exits during start-up: a port taken between free_port() and its bind); then Ctrl-C,
    as a user stops it, every service going down with it."""
    from tests.test_dev_stack import _Stack

    # As root, pgserver runs postgres as user "pgserver": every user must reach the dir.
    root = Path(tempfile.mkdtemp(prefix="mccgw-devstack-"))
    root.chmod(0o755)
    try:
        running = None
        for attempt in (1, 2):
            ports = {name: free_port() for name in ("api", "temporal", "ui", "rpc")}
            running = DevStack(_Stack(root / f"dev{attempt}", ports), root / f"dev{attempt}", ports)
            try:
                running.stack.wait_ready(running.base_url)
                break
            except pytest.fail.Exception:
                if attempt == 2 or running.stack.proc.poll() is None:  # not a lost port
                    raise
        assert running is not None
        try:
            yield running
            for p in psutil.Process(running.stack.proc.pid).children(recursive=True):
                try:
                    if p.status() == psutil.STATUS_STOPPED:
                        p.resume()  # the console test SIGSTOPs the chain node
                except psutil.NoSuchProcess:
                    pass
            running.stack.stop()
            running.check_quiet()  # its shutdown too
        finally:
            running.stack.kill()
    finally:
        shutil.rmtree(root, ignore_errors=True)
