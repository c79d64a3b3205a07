"""Token reads on ONE API worker (uvicorn, its own process), beside a bare endpoint of the same
app measured in the same run:

- ``GET /bench/bare``: a constant JSON body through the same middleware (request id, CORS,
  the anonymous rate limit's Redis hit): the reference;
- ``GET /v1/mcd/balance``: a user's balance (JWT check, the user's rate limit, the cache that
  ledger NOTIFYs evict; no chain call);
- ``GET /v1/mcc/price``: public; the rule's view, cached and evicted on every new price;
- ``GET /v1/mcc/transactions``: pages of a user with 100,000 ledger movements (page 1 and a
  deep page), sequential.

Latency: p50/p99 of sequential requests (one connection). Throughput: requests/s with
``--connections`` keep-alive connections for ``--seconds`` each, from a minimal raw HTTP/1.1
client (so the client costs little of the two cores), and the API process's own CPU time per
request, whose inverse is what one worker serves on a core of its own (the figure that does
not depend on what else the machine runs). Rate limits are raised for the run.

    .venv/bin/python -m bench.tokens [--seconds 8] [--connections 16] [--requests 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
import psycopg
import sqlalchemy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.config import Settings
from core.embedded import free_port
from tests.services import fresh_database, redis_server

ROWS = 100_000
UNIT = 10**9


def bench_app() -> Any:
    """The real app plus a bare endpoint; rate limits high enough for a load test."""
    import api.auth.deps
    import api.ratelimit
    from api.app import create_app

    api.ratelimit.ANONYMOUS_LIMIT = 10**9
    api.auth.deps.USER_LIMIT = 10**9
    app = create_app()

    @app.get("/bench/bare")
    async def bare() -> dict[str, Any]:
        return {"data": {"type": "bare", "id": "1", "attributes": {"ok": True}}}

    return app


def seed(settings: Settings) -> tuple[str, str]:
    """A user with MCD on the ledger and 100,000 MCC movements; returns (uid, access token)."""
    from authserver.issue import issue_token
    from authserver.server import AuthServer
    from core.scopes import USER_SCOPES

    uid = f"u_bench_{secrets.token_hex(4)}"
    plain = settings.database_url_plain
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO users (uid, username, email, role) VALUES (%s, %s, %s, 'user')",
            (uid, uid, f"{uid}@bench.local"),
        )
        project = conn.execute(
            "INSERT INTO projects (name, allowed_scopes, rate_limit_tier, ip_allowlist, limits) "
            "VALUES ('bench', '{}', 'enterprise', '{}', '{}') RETURNING project_id"
        ).fetchone()
        assert project is not None
        conn.execute(
            "INSERT INTO oauth_clients (client_id, project_id, name, redirect_uris, "
            "allowed_scopes, grant_types, access_token_format) VALUES "
            "('cl_bench', %s, 'bench', %s, %s, %s, 'jwt')",
            (project[0], ["http://localhost/cb"], list(USER_SCOPES), ["authorization_code"]),
        )
        conn.execute(
            "INSERT INTO ledger_accounts (user_uid, currency, balance) VALUES (%s, 'MCD', %s)",
            (uid, 1234 * UNIT),
        )
        conn.execute(
            "INSERT INTO ledger_accounts (user_uid, currency, balance) VALUES (%s, 'MCC', %s)",
            (uid, ROWS * UNIT),
        )
        conn.execute(
            "INSERT INTO ledger_entries (user_uid, currency, kind, amount, d_balance, d_held, "
            "d_pending_out, reference) SELECT %s, 'MCC', 'credit', %s, %s, 0, 0, 'bench:' || g "
            "FROM generate_series(1, %s) g",
            (uid, UNIT, UNIT, ROWS),
        )
        conn.execute("VACUUM ANALYZE ledger_entries")
    engine = sqlalchemy.create_engine(settings.database_url)
    try:
        token = issue_token(
            AuthServer(settings, engine), user=uid, scope="mcd:read mcc:read",
            client_id="cl_bench",
        )  # fmt: skip
    finally:
        engine.dispose()
    return uid, str(token["access_token"])


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    await reader.readexactly(length)
    return status


def _request(path: str, token: str | None) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def latency(port: int, request: bytes, n: int) -> list[float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    samples: list[float] = []
    try:
        for i in range(n + 50):
            started = time.perf_counter()
            writer.write(request)
            status = await _read_response(reader)
            if status != 200:
                raise SystemExit(f"status {status} for {request[:60]!r}")
            if i >= 50:  # warm-up first
                samples.append((time.perf_counter() - started) * 1000)
    finally:
        writer.close()
    return samples


async def throughput(port: int, request: bytes, connections: int, seconds: float) -> float:
    stop = time.perf_counter() + seconds
    counts = [0] * connections

    async def one(i: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < stop:
                writer.write(request)
                if await _read_response(reader) != 200:
                    raise SystemExit("non-200 under load")
                counts[i] += 1
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(connections)))
    return sum(counts) / (time.perf_counter() - started)


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _wait_up(port: int, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit("the API exited during start-up")
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(_request("/healthz", None))
            await _read_response(reader)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise SystemExit("the API did not start")


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


async def run(port: int, token: str, args: argparse.Namespace, api: psutil.Process) -> None:
    endpoints = [
        ("bare GET (reference)", _request("/bench/bare", None)),
        ("GET /v1/mcd/balance", _request("/v1/mcd/balance", token)),
        ("GET /v1/mcc/price", _request("/v1/mcc/price", None)),
    ]
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'endpoint':<28}{'p50 ms':>8}{'p99 ms':>8}{'req/s':>9}{'API CPU ms/req':>16}"
          f"{'req/s per core':>16}  (1 worker, {args.connections} connections)")  # fmt: skip
    for name, request in endpoints:
        samples = await latency(port, request, args.requests)
        before = _cpu(api)
        started = time.perf_counter()
        rate = await throughput(port, request, args.connections, args.seconds)
        served = rate * (time.perf_counter() - started)
        cpu_ms = (_cpu(api) - before) * 1000 / max(served, 1)
        print(f"{name:<28}{pct(samples, 0.5):>8.2f}{pct(samples, 0.99):>8.2f}{rate:>9.0f}"
              f"{cpu_ms:>16.3f}{1000 / cpu_ms:>16.0f}")  # fmt: skip
    deep = ROWS // 20 // 2  # the middle page of 5,000
    for label, page in (("page 1", 1), (f"page {deep}", deep)):
        request = _request(f"/v1/mcc/transactions?per_page=20&page={page}", token)
        samples = await latency(port, request, 300)
        print(f"{'transactions ' + label:<28}{pct(samples, 0.5):>8.2f}{pct(samples, 0.99):>8.2f}"
              f"{'':>9}  ({ROWS:,} movements)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="per throughput run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--requests", type=int, default=2000, help="sequential, for latency")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_database(Path(tmp)) as db_url,
        redis_server(Path(tmp)) as redis_url,
    ):
        Path(tmp).chmod(0o755)
        settings = Settings(
            environment="test", database_url=db_url, redis_url=redis_url,
            chain_keys_dir=Path(tmp) / "keys", log_level="WARNING",
        )  # fmt: skip
        _, token = seed(settings)
        # The API reads each mint's decimals once at start-up (never assumed), so a chain is
        # there to answer that; the measured paths never call it.
        from chain.node.process import start_node

        node = start_node(
            data_dir=Path(tmp) / "chain", keys_dir=Path(tmp) / "keys", port=free_port(),
            fixtures=False,
        )  # fmt: skip
        port = free_port()
        env = {
            **os.environ,
            "ENVIRONMENT": "test",
            "DATABASE_URL": db_url,
            "REDIS_URL": redis_url,
            "CHAIN_KEYS_DIR": str(Path(tmp) / "keys"),
            "TEMPORAL_ADDRESS": "127.0.0.1:1",  # lazy client: never contacted on these paths
            "SOLANA_RPC_URL": node.url,  # read once for the decimals; not on the measured paths
            "LOG_LEVEL": "WARNING",
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "bench.tokens:bench_app",
             "--host", "127.0.0.1", "--port", str(port), "--no-access-log",
             "--log-level", "warning"],
            env=env, cwd=Path(__file__).resolve().parent.parent,
        )  # fmt: skip
        try:
            asyncio.run(_wait_up(port, proc))
            asyncio.run(run(port, token, args, psutil.Process(proc.pid)))
        finally:
            proc.terminate()
            proc.wait(15)
            node.stop()


if __name__ == "__main__":
    main()
