"""One API worker under an outside load generator, for the HTTP read benchmarks.

The API runs as production runs it (uvicorn, uvloop + httptools, no access log, one worker)
in its own process pinned to one core; the load comes from ``wrk`` (C, epoll) pinned to the
other core, so the client is never what caps the rate. A Python client in the server's
process or core costs more CPU per request than the server itself, and measures mostly
itself. ``wrk`` is installed with apt-get when missing (root), and py-spy into this venv
when a profile is asked for: tools of the bench, not dependencies of the product.

Each figure: p50/p99 of sequential requests on one connection, requests/s with N keep-alive
connections, and the API process's own CPU per request (its inverse is what one worker
serves on a core of its own, the figure least moved by what else the machine runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from fastapi import Response  # the return annotation of /bench/auth, resolved here
from starlette.requests import Request

ROOT = Path(__file__).resolve().parent.parent
API_CPU, LOAD_CPU = 0, 1
# wrk prints one JSON line at the end: its latency percentiles (µs), counts and errors.
_REPORT = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "non2xx": %d, '
    .. '"errors": %d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end
"""


@dataclass(frozen=True)
class Figure:
    """One route's figures (``asdict`` gives the JSON ``bench/summary.py`` reads)."""

    p50_ms: float
    p99_ms: float
    rate: float  # requests/s with `connections` connections
    cpu_ms: float  # API process CPU per request during the rate run

    @property
    def per_core(self) -> float:
        return 1000 / self.cpu_ms if self.cpu_ms else 0.0


def _cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def _pin(pid: int, cpu: int) -> None:
    cpus = _cpus()
    if len(cpus) >= 2:  # on one core there is nothing to separate
        with contextlib.suppress(OSError, psutil.Error):
            psutil.Process(pid).cpu_affinity([cpus[cpu % len(cpus)]])


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing wrk (apt-get) for the load generator ...", flush=True)
        subprocess.run(
            "apt-get install -y -qq wrk || (apt-get update -qq && apt-get install -y -qq wrk)",
            shell=True, check=False, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk is needed as the load generator: apt-get install wrk")
    return found


def ensure_py_spy() -> str:
    path = Path(sys.executable).parent / "py-spy"
    if not path.exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "py-spy"], check=True)
    return str(path)


@contextlib.contextmanager
def api_process(factory: str, env: dict[str, str], port: int) -> Iterator[psutil.Process]:
    """uvicorn serving ``factory`` (``module:function``) on one core; stopped afterwards."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", factory, "--host", "127.0.0.1",
         "--port", str(port), "--loop", "uvloop", "--http", "httptools", "--no-access-log",
         "--log-level", "warning"],
        env={**os.environ, **env}, cwd=ROOT,
    )  # fmt: skip
    try:
        _pin(proc.pid, API_CPU)
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise SystemExit("the API exited during start-up")
            try:
                get(port, "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the API did not start") from None
                time.sleep(0.1)
        yield psutil.Process(proc.pid)
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[Any]) -> None:
    """Terminate a process of the bench's, killed if it has not ended within 15 s."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


def get(port: int, path: str, headers: dict[str, str] | None = None) -> Any:
    """One request, checked: the answer's JSON (SystemExit unless 200)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        raise SystemExit(f"GET {path}: {exc.code} {exc.read()[:300]!r}") from exc


def wrk(
    port: int, path: str, headers: dict[str, str], connections: int, seconds: float
) -> dict[str, int]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_REPORT)
    duration = f"-d{max(1, round(seconds))}s"
    cmd = [ensure_wrk(), "-t1", f"-c{connections}", duration, "-s", script.name]
    for name, value in headers.items():
        cmd += ["-H", f"{name}: {value}"]
    cmd.append(f"http://127.0.0.1:{port}{path}")
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        _pin(proc.pid, LOAD_CPU)
        out, _ = proc.communicate(timeout=seconds + 60)
    finally:
        os.unlink(script.name)
    line = next((x for x in out.splitlines() if x.startswith("WRK ")), None)
    if line is None:
        raise SystemExit(f"wrk gave no report:\n{out}")
    report: dict[str, int] = json.loads(line[4:])
    if report["non2xx"] or report["errors"]:
        raise SystemExit(f"GET {path} under load: {report}")
    return report


def measure(
    api: psutil.Process,
    port: int,
    path: str,
    headers: dict[str, str] | None = None,
    *,
    connections: int = 16,
    seconds: float = 5.0,
    profile: Path | None = None,
) -> Figure:
    """Latency (one connection), then rate and API CPU (``connections``) of ``GET path``."""
    headers = headers or {}
    get(port, path, headers)  # a 200 first, and warm
    wrk(port, path, headers, 4, 1.0)  # warm-up under load too
    seq = wrk(port, path, headers, 1, seconds)
    cpu = api.cpu_times()
    spy = None
    if profile is not None:
        profile.parent.mkdir(parents=True, exist_ok=True)
        spy = subprocess.Popen(
            [ensure_py_spy(), "record", "-p", str(api.pid), "-r", "250", "-f", "raw",
             "-d", str(int(seconds)), "-o", str(profile), "--nonblocking"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
    rate, cpu_ms = _rate_run(api, port, path, headers, connections, seconds, cpu)
    if spy is not None:
        spy.wait(30)
    return Figure(seq["p50_us"] / 1000, seq["p99_us"] / 1000, rate, cpu_ms)


def _rate_run(
    api: psutil.Process,
    port: int,
    path: str,
    headers: dict[str, str],
    connections: int,
    seconds: float,
    cpu: Any = None,
) -> tuple[float, float]:
    """(req/s, API CPU ms per request) of one run of ``connections`` connections."""
    cpu = cpu or api.cpu_times()
    load = wrk(port, path, headers, connections, seconds)
    after = api.cpu_times()
    used = (after.user + after.system) - (cpu.user + cpu.system)
    return load["requests"] / (load["duration_us"] / 1e6), used * 1000 / max(load["requests"], 1)


def in_turn(
    api: psutil.Process,
    port: int,
    first: dict[str, tuple[Figure, dict[str, str]]],
    *,
    rounds: int,
    connections: int = 16,
    seconds: float = 5.0,
) -> dict[str, Figure]:
    """Each route's rate and CPU per request as the median of ``rounds`` runs (its ``first``
    figure's and ``rounds - 1`` more), the routes run in turn in each round. One run of each,
    one after the other, moved by up to 0.4 between routes running the same code on this
    machine (docs/performance.md, pass five): a route compared with its reference of the same
    round, ``rounds`` times, is what one route costs, not when it ran."""
    runs = {path: [(f.rate, f.cpu_ms)] for path, (f, _) in first.items()}
    for _ in range(rounds - 1):
        for path, (_, headers) in first.items():
            runs[path].append(_rate_run(api, port, path, headers, connections, seconds))
    for path, got in runs.items():
        print(f"  {path}: " + ", ".join(f"{r:.0f}/s {c:.3f} ms" for r, c in got), flush=True)
    return {
        path: Figure(
            f.p50_ms,
            f.p99_ms,
            statistics.median(r for r, _ in runs[path]),
            statistics.median(c for _, c in runs[path]),
        )
        for path, (f, _) in first.items()
    }


def bench_app() -> Any:
    """The real app (settings from the environment) plus the references of the same run:
    ``/bench/nothing`` (a constant body through the middleware, exempt from the rate limit:
    no Redis, no database; what the access layer is measured against), ``/bench/bare``
    (a constant body through the whole middleware stack, the anonymous rate
    limit's Redis hit included) and ``/bench/auth`` (the bearer check and the user's rate
    limit, nothing else). Rate limits are raised for a load test."""
    from fastapi import APIRouter, Depends

    import api.auth.declaration
    import api.ratelimit
    from access.callers import project as a_project
    from access.callers import user as any_user
    from api.app import create_app
    from api.callers import PUBLIC
    from api.envelope import fast
    from api.routing import LightRoute

    api.ratelimit.ANONYMOUS_LIMIT = 10**9
    api.auth.declaration.USER_LIMIT = 10**9
    # /bench/nothing is exempt from the rate limit: no Redis, no database, a constant body.
    api.ratelimit.EXEMPT_PREFIXES = (*api.ratelimit.EXEMPT_PREFIXES, "/bench/nothing")
    app = create_app()

    @app.get("/bench/nothing", dependencies=[Depends(PUBLIC)])
    async def nothing() -> dict[str, Any]:
        return {"data": {"type": "bare", "id": "1", "attributes": {"ok": True}}}

    @app.get("/bench/bare", dependencies=[Depends(PUBLIC)])
    async def bare() -> dict[str, Any]:
        return {"data": {"type": "bare", "id": "1", "attributes": {"ok": True}}}

    # Declared as the reads are (a LightRoute answering its own Response, api.envelope.fast):
    # what an authenticated read's access layer costs, the reads' ceiling (aim 5).
    light = APIRouter(route_class=LightRoute)

    @light.get("/bench/auth")
    async def auth(
        user: Any = Depends(api.auth.declaration.Callers(any_user())),
    ) -> Response:
        return fast({"data": {"type": "auth", "id": user.uid, "attributes": {"ok": True}}})

    app.include_router(light)

    @app.post("/bench/accept-floor")
    async def accept_floor(
        request: Request,
        caller: Any = Depends(api.auth.declaration.Callers(a_project("transfer:write"))),
    ) -> dict[str, Any]:
        return await _accept_floor(request, str(caller.project_id))

    # The floor's parts, each declared as the floor is and cut short: the credentials and the
    # body alone; and with the row's transaction but no start (what the start and the
    # transaction each add is the difference).
    @app.post("/bench/accept-floor/credentials")
    async def accept_floor_credentials(
        request: Request,
        caller: Any = Depends(api.auth.declaration.Callers(a_project("transfer:write"))),
    ) -> dict[str, Any]:
        return await _accept_floor(request, str(caller.project_id), row=False, start=False)

    @app.post("/bench/accept-floor/row")
    async def accept_floor_row(
        request: Request,
        caller: Any = Depends(api.auth.declaration.Callers(a_project("transfer:write"))),
    ) -> dict[str, Any]:
        return await _accept_floor(request, str(caller.project_id), start=False)

    return app


_FLOOR_LOCK = asyncio.Lock()
_FLOOR_TABLE = (
    "CREATE TABLE IF NOT EXISTS bench_accept_floor (id uuid PRIMARY KEY, uid text NOT NULL, "
    "body jsonb NOT NULL)"
)


async def _accept_floor(
    request: Request, uid: str, *, row: bool = True, start: bool = True
) -> dict[str, Any]:
    """What any accept of a write needs at the least: the project's credentials checked as a
    transfer's (``transfer:write``), its JSON body
    read, one database transaction that writes one row (BEGIN, INSERT, COMMIT on the app's
    engine, SQL text through the driver, no ORM), and one workflow start (a Ping) after the
    commit. No validation, idempotency, limits or ledger: the gateway's own work is what a
    transfer accept costs beyond this (``bench.costs``' ``accept floor``). Without ``row`` or
    ``start``, that part is left out (the floor's parts: ``accept floor credentials`` and
    ``accept floor row``)."""
    import uuid

    from workflows.reference import PingInput, PingWorkflow

    state = request.app.state
    body = await request.body()
    row_id = str(uuid.uuid4())
    if row and not getattr(state, "bench_floor_ready", False):  # the first call, before a window
        async with _FLOOR_LOCK, state.db_engine.begin() as conn:
            await conn.exec_driver_sql(_FLOOR_TABLE)
            state.bench_floor_ready = True
    if row:
        async with state.db_engine.begin() as conn:
            await conn.exec_driver_sql(
                "INSERT INTO bench_accept_floor (id, uid, body) VALUES (%(id)s, %(uid)s, %(body)s)",
                {"id": row_id, "uid": uid, "body": body.decode()},
            )
    if start:
        await state.temporal.start_workflow(
            PingWorkflow.run, PingInput(message=row_id), id=f"bench-floor-{row_id}",
            task_queue=state.task_queue,
        )  # fmt: skip
    return {"data": {"type": "accept-floor", "id": row_id, "attributes": {"ok": True}}}


HEADER = (
    f"{'endpoint':<28}{'p50 ms':>8}{'p99 ms':>8}{'req/s':>8}{'API CPU ms/req':>16}"
    f"{'req/s per core':>16}"
)


def row(name: str, f: Figure) -> str:
    return (
        f"{name:<28}{f.p50_ms:>8.2f}{f.p99_ms:>8.2f}{f.rate:>8.0f}{f.cpu_ms:>16.3f}"
        f"{f.per_core:>16.0f}"
    )


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f}) on {os.cpu_count()} CPUs"
