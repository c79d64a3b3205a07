"""Token reads on ONE API worker (uvicorn, its own process), beside a bare endpoint of the same
app measured in the same run:

- ``GET /bench/nothing``: a constant JSON body through the middleware, exempt from the rate
  limit (no Redis): what the access layer's CPU is measured against;
- ``GET /bench/bare``: a constant JSON body through the same middleware (request id, CORS,
  the anonymous rate limit's Redis hit): the reference of the reads;
- ``GET /v1/mcc/balance``: the same for MCC;
- ``GET /v1/mcd/balance``: a user's balance (JWT check, the user's rate limit, the cache that
  ledger NOTIFYs evict; no chain call);
- ``GET /v1/mcc/price``: public; the rule's view, cached and evicted on every new price;
- ``GET /v1/mcc/transactions``: pages of a user with 100,000 ledger movements (page 1 and a
  deep page), sequential.

- ``GET /bench/auth``: the bearer check and the user's rate limit alone (what the access
  layer costs);

The API runs as in production on one core, ``wrk`` loads it from the other (bench/_load.py says
how and why). Rate limits are raised for the run. ``--profile DIR`` also records a py-spy
profile of the API (raw collapsed stacks) during each rate run.

    .venv/bin/python -m bench.tokens [--seconds 5] [--connections 16] [--profile DIR]
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

import psutil
import psycopg
import sqlalchemy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _load as load
from bench._report import record
from core.config import Settings
from core.embedded import free_port
from tests.services import fresh_database, redis_server

ROWS = 100_000
UNIT = 10**9


def seed(settings: Settings) -> tuple[str, str]:
    """A user with MCD on the ledger and 100,000 MCC movements; returns (uid, access token)."""
    from access.scopes import USER_SCOPES
    from authserver.issue import issue_token
    from authserver.server import AuthServer

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


def run(port: int, token: str, args: argparse.Namespace, api: psutil.Process) -> None:
    bearer = {"Authorization": f"Bearer {token}"}
    endpoints = [
        ("nothing (no rate limit)", "/bench/nothing", {}),
        ("bare GET (reference)", "/bench/bare", {}),
        ("bearer check only", "/bench/auth", bearer),
        ("GET /v1/mcc/balance", "/v1/mcc/balance", bearer),
        ("GET /v1/mcd/balance", "/v1/mcd/balance", bearer),
        ("GET /v1/mcc/price", "/v1/mcc/price", {}),
    ]
    print(load.load_line())
    print(f"{load.HEADER}  (1 worker, wrk, {args.connections} connections)")
    figures: dict[str, dict[str, float]] = {}
    first: dict[str, tuple[load.Figure, dict[str, str]]] = {}
    for name, path, headers in endpoints:
        slug = path.strip("/").replace("/", "_")
        profile = args.profile / f"{slug}.txt" if args.profile else None
        figure = load.measure(
            api, port, path, headers, connections=args.connections, seconds=args.seconds,
            profile=profile,
        )  # fmt: skip
        print(load.row(name, figure), flush=True)
        first[path] = (figure, headers)
    if args.rounds > 1:
        print(f"rate and CPU: the median of {args.rounds} runs, the routes in turn in each round")
    steady = load.in_turn(
        api, port, first, rounds=args.rounds, connections=args.connections, seconds=args.seconds
    )
    for name, path, _ in endpoints:
        if args.rounds > 1:
            print(load.row(name, steady[path]), flush=True)
        figures[path] = asdict(steady[path])
    deep = ROWS // 20 // 2  # the middle page of 5,000
    for label, page in (("page 1", 1), (f"page {deep}", deep)):
        path = f"/v1/mcc/transactions?per_page=20&page={page}"
        figure = load.measure(api, port, path, bearer, connections=1, seconds=args.seconds / 2)
        figures[f"transactions {label}"] = asdict(figure)
        print(f"{'transactions ' + label:<28}{figure.p50_ms:>8.2f}{figure.p99_ms:>8.2f}"
              f"{'':>8}  ({ROWS:,} movements)")  # fmt: skip
    print(load.load_line())
    print("aims: balance and price p50 <= 3 ms and >= 1,500 req/s; transactions p50 <= 10 ms")
    bare, nothing, auth = (figures[p] for p in ("/bench/bare", "/bench/nothing", "/bench/auth"))
    for path in ("/v1/mcc/balance", "/v1/mcd/balance", "/v1/mcc/price"):
        f = figures[path]
        print(f"  {path} / bare: {f['rate'] / bare['rate']:.2f} by req/s, "
              f"{bare['cpu_ms'] / f['cpu_ms']:.2f} by CPU per request")  # fmt: skip
    access = auth["cpu_ms"] - nothing["cpu_ms"]
    print(f"  access layer (bearer check + rate limit + revocation): {access:.3f} CPU ms per "
          f"call (/bench/auth {auth['cpu_ms']:.3f} - /bench/nothing {nothing['cpu_ms']:.3f}; "
          "aim <= 0.5)")  # fmt: skip
    record("tokens", figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per latency and rate run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--rounds", type=int, default=5, help="rate runs of each route, in turn (the median)"
    )
    parser.add_argument("--profile", type=Path, help="directory for py-spy profiles")
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
        from devchain.node.process import start_node

        node = start_node(
            data_dir=Path(tmp) / "chain", keys_dir=Path(tmp) / "keys", port=free_port(),
            fixtures=False,
        )  # fmt: skip
        port = free_port()
        env = {
            "ENVIRONMENT": "test",
            "DATABASE_URL": db_url,
            "REDIS_URL": redis_url,
            "CHAIN_KEYS_DIR": str(Path(tmp) / "keys"),
            "TEMPORAL_ADDRESS": "127.0.0.1:1",  # lazy client: never contacted on these paths
            "SOLANA_RPC_URL": node.url,  # read once for the decimals; not on the measured paths
            "LOG_LEVEL": "WARNING",
        }
        try:
            with load.api_process("bench._load:bench_app", env, port) as api:
                run(port, token, args, api)
        finally:
            node.stop()


if __name__ == "__main__":
    main()
