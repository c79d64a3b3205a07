"""Small helpers the benchmarks share: percentiles, and CPU time per process from /proc."""

from __future__ import annotations

import os
from pathlib import Path


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def processes() -> list[tuple[int, int, str, float]]:
    """(pid, parent pid, command line, CPU seconds) of every process, from /proc (empty
    elsewhere)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    out = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds = (int(fields[11]) + int(fields[12])) / ticks
        out.append((int(entry.name), int(fields[1]), cmdline, seconds))
    return out


def cpu_by_role(worker_pid: int | None, node_pid: int | None, db_name: str) -> dict[str, float]:
    """CPU seconds used so far by each part of the stack on this machine."""
    roles = {"API + driver": 0.0, "worker": 0.0, "Temporal": 0.0, "PostgreSQL": 0.0, "node": 0.0}
    for pid, ppid, cmdline, seconds in processes():
        if pid == os.getpid():
            roles["API + driver"] += seconds
        elif pid == worker_pid:
            roles["worker"] += seconds
        elif pid == node_pid:
            roles["node"] += seconds
        elif ppid == os.getpid() and "temporal" in cmdline and "start-dev" in cmdline:
            roles["Temporal"] += seconds
        elif cmdline.startswith("postgres:") and db_name in cmdline:
            roles["PostgreSQL"] += seconds
    return roles
