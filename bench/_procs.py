"""Small helpers the benchmarks share: percentiles, and CPU time per process from /proc."""

from __future__ import annotations

import os
from pathlib import Path


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _stat_all() -> list[tuple[int, int, str, float, float]]:
    """(pid, parent pid, command line, own CPU seconds, CPU seconds of its reaped children) of
    every process, from /proc (empty elsewhere)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    out = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        own = (int(fields[11]) + int(fields[12])) / ticks
        reaped = (int(fields[13]) + int(fields[14])) / ticks
        out.append((int(entry.name), int(fields[1]), cmdline, own, reaped))
    return out


ROLES = ("API + driver", "worker", "Temporal", "PostgreSQL", "Redis", "node")
# With the API in a process of its own (cpu_sample's ``api_pid``), this process is the driver.
API_ROLES = ("API", "worker", "Temporal", "PostgreSQL", "Redis", "node", "driver")
# pid -> (role, parent pid, own CPU seconds, CPU seconds of reaped children where counted)
CpuSample = dict[int, tuple[str, int, float, float]]


def cpu_sample(
    worker_pid: int | None, node_pid: int | None, db_name: str, api_pid: int | None = None
) -> CpuSample:
    """CPU seconds used so far by each process of the stack on this machine, by role (the
    Temporal dev server and the embedded Redis count when this process started them). The
    database server counts whole: its postmaster (with the backends it has reaped) and every
    process it started (the backends, the WAL writer, the checkpointer...). With ``api_pid``
    the API is that process and this one is the ``driver``."""
    stats = _stat_all()
    postmasters = {
        ppid for _, ppid, cmd, _, _ in stats if cmd.startswith("postgres:") and db_name in cmd
    }
    sample: CpuSample = {}
    for pid, ppid, cmdline, own, reaped in stats:
        if pid == os.getpid():
            role = "API + driver" if api_pid is None else "driver"
        elif pid == api_pid:
            role = "API"
        elif pid == worker_pid:
            role = "worker"
        elif pid == node_pid:
            role = "node"
        elif ppid == os.getpid() and "temporal" in cmdline and "start-dev" in cmdline:
            role = "Temporal"
        elif pid in postmasters or ppid in postmasters:
            role = "PostgreSQL"
        elif ppid == os.getpid() and "redis-server" in cmdline:
            role = "Redis"
        else:
            continue
        sample[pid] = (role, ppid, own, reaped if pid in postmasters else 0.0)
    return sample


def cpu_between(before: CpuSample, after: CpuSample) -> dict[str, float]:
    """CPU seconds each role used between two samples, by process: a process that started in
    between counts whole, one that ended counts through its parent's reaped time (database
    backends come and go with the connection pools; a difference of totals went negative)."""
    roles = dict.fromkeys(API_ROLES if any(r == "API" for r, *_ in after.values()) else ROLES, 0.0)
    for pid, (role, _, own, reaped) in after.items():
        prev = before.get(pid)
        if prev is None or prev[0] != role:
            roles[role] += own
        else:
            roles[role] += (own - prev[2]) + (reaped - prev[3])
    for pid, (role, ppid, own, _) in before.items():
        # Ended in between: the parent's reaped time above holds its whole life, of which
        # ``own`` was used before the first sample.
        if pid not in after and ppid in after and after[ppid][3]:
            roles[role] -= own
    return roles
