"""The dev and ops tools' one supervisor (mccgw/processes.py): a child stops with SIGTERM or,
past its grace, SIGKILL, its whole process group with it; a part that keeps crashing stops the
supervisor instead of being restarted for ever."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import psutil
import pytest

from mccgw import processes
from mccgw.processes import Child, Restarts, stop_together

# A child that ignores SIGTERM, with a grandchild in its process group.
STUBBORN = (
    "import signal, subprocess, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print('up', flush=True)\n"
    "time.sleep(60)\n"
)


def _child(tmp_path: Path, name: str, code: str) -> Child:
    child = Child(name, [sys.executable, "-c", code], {}, tmp_path / f"{name}.log")
    child.start()
    deadline = time.monotonic() + 10
    while b"up" not in child.log.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.02)
    return child


def test_a_child_that_ignores_sigterm_is_killed_with_its_group(tmp_path: Path) -> None:
    polite = _child(tmp_path, "polite", "import time; print('up', flush=True); time.sleep(60)")
    stubborn = _child(tmp_path, "stubborn", STUBBORN)
    group = [p.pid for p in psutil.Process(stubborn.pid).children(recursive=True)]
    assert group and polite.starts == stubborn.starts == 1

    started = time.monotonic()
    killed = stop_together([polite, stubborn], timeout=1)
    assert killed == [stubborn] and time.monotonic() - started < 5
    assert polite.popen is not None and polite.popen.returncode == -signal.SIGTERM
    assert stubborn.popen is not None and stubborn.popen.returncode == -signal.SIGKILL
    psutil.wait_procs([psutil.Process(pid) for pid in group if psutil.pid_exists(pid)], 5)
    assert not [pid for pid in group if psutil.pid_exists(pid)]  # the grandchild went too
    assert not polite.alive() and polite.exited() and not polite.stop()  # stopped: a no-op


def test_restarts_back_off_then_give_up(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(processes.time, "sleep", waits.append)
    said: list[str] = []
    restarts, started = Restarts(said.append), []
    for _ in range(5):
        restarts.restart("worker", lambda: started.append(1), why="exited with -9")
    assert waits == [0.5, 1.0, 2.0, 4.0, 5]
    assert len(started) == 5 and said[:2] == [
        "worker exited with -9; restarting",
        "worker restarted",
    ]
    with pytest.raises(RuntimeError, match=r"worker keeps crashing; see x\.log"):
        restarts.restart("worker", lambda: started.append(1), hint="; see x.log")
    restarts.restart("api", lambda: started.append(1))  # counted per part
    assert len(started) == 6
