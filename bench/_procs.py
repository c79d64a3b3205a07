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
