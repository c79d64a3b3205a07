"""The child processes of the dev and ops tools, supervised one way: ``mccgw dev`` (its worker
and API) and the production topology run as processes (``deploy/topology.py``: its API,
workers, chain node and Temporal server).

A child runs in a session of its own (a Ctrl-C in the terminal reaches only its parent, which
stops the children in order), dies with its parent, and appends its output to its log. It is
stopped with SIGTERM to its whole process group, then SIGKILL after a grace period; a crashed
one is restarted with back-off (``Restarts``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from core.embedded import die_with_parent


@dataclass
class Child:
    """One supervised process, restartable (a crash, a chaos test's kill)."""

    name: str
    args: list[str]
    env: dict[str, str]
    log: Path
    cwd: Path | None = None
    popen: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @classmethod
    def adopt(cls, name: str, popen: subprocess.Popen[bytes], log: Path) -> Child:
        """A process started elsewhere (``core.embedded.start_temporal``), stopped as a child."""
        return cls(name, [], {}, log, popen=popen, starts=1)

    def start(self) -> None:
        with self.log.open("ab") as out:  # the child keeps its own descriptor
            self.popen = subprocess.Popen(
                self.args,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.cwd,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        self.starts += 1

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def exited(self) -> bool:
        """Started, and no longer running."""
        return self.popen is not None and self.popen.poll() is not None

    def signal(self, sig: int) -> None:
        """``sig`` to the child's whole process group, if it runs."""
        if self.alive():
            assert self.popen is not None
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.killpg(self.popen.pid, sig)

    def stop(self, timeout: float = 15) -> bool:
        """SIGTERM, then SIGKILL if it is still running after ``timeout`` seconds; True if it
        had to be killed."""
        return bool(stop_together([self], timeout))


def stop_together(children: Iterable[Child], timeout: float = 15) -> list[Child]:
    """SIGTERM to every live child at once, then wait for all within one ``timeout``; SIGKILL
    to whatever still runs then. Returns the children that had to be killed."""
    live = [c for c in children if c.alive()]
    for child in live:
        child.signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    killed = []
    for child in live:
        assert child.popen is not None
        try:
            child.popen.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.signal(signal.SIGKILL)
            child.popen.wait()
            killed.append(child)
    return killed


@dataclass
class Restarts:
    """Back-off per supervised part: 0.5 s, 1 s, 2 s ... up to 5 s before each restart; five
    crashes within a minute raise instead (the supervisor then stops everything)."""

    say: Callable[[str], None]
    window: float = 60.0
    most: int = 5
    _times: dict[str, list[float]] = field(default_factory=dict)

    def restart(
        self, name: str, start: Callable[[], None], *, why: str = "is down", hint: str = ""
    ) -> None:
        """``start`` again after the back-off; ``why`` and ``hint`` go into what is said."""
        now = time.monotonic()
        recent = [t for t in self._times.get(name, []) if now - t < self.window]
        if len(recent) >= self.most:
            raise RuntimeError(f"{name} keeps crashing{hint}")
        recent.append(now)
        self._times[name] = recent
        self.say(f"{name} {why}; restarting")
        time.sleep(min(2 ** len(recent) * 0.25, 5))
        start()
        self.say(f"{name} restarted")
