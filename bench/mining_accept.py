"""API CPU per accepted mining submission (``POST /v1/mining/submit-activity``, and per item of
``POST /v1/mining/batch-submit`` in batches of 100), beside the CPU per
``POST /v1/transfer/request`` and per bare ``GET /bench/bare`` in the same run; then the wall
time and CPU of four batches of 100 sent at once (``--batch-rounds`` rounds).

The accept path alone: the app in this process through httpx.ASGITransport, the embedded
services the tests use (PostgreSQL, Redis, chain node, Temporal dev server), no worker (the
workflows are started after each commit, as in production, and stay queued). Each figure is
``time.process_time()`` over ``--n`` requests, ``--flight`` in flight, after a warm-up, the
post-commit workflow starts included (the driver's own CPU too: compare the figures with each
other, not with a separate server process). ``--profile`` prints the cProfile top of the
mining run. Compare CPU, not wall-clock rates, on a shared machine.

    .venv/bin/python -m bench.mining_accept [--n 300] [--flight 16] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import api.ratelimit
from activities.deps import worker_deps
from api.app import create_app
from bench._seed import bench_project, funded_on_chain
from bench._worker import temporal
from bench.webhooks_mining import BASE, signed_activity
from core.config import Settings
from core.embedded import free_port
from tests.services import fresh_database, redis_server

SCOPES = ["mining:write", "mining:read", "transfer:write"]
BATCH = 100


async def cpu_per_request(
    app: Any, call: Callable[[int], Awaitable[None]], n: int, flight: int, first: int
) -> float:
    """API + driver CPU ms per call, the post-commit workflow starts included."""
    sem = asyncio.Semaphore(flight)

    async def one(i: int) -> None:
        async with sem:
            await call(i)

    before = time.process_time()
    await asyncio.gather(*(one(first + i) for i in range(n)))
    await app.state.after_commit.drain(30)
    return (time.process_time() - before) * 1000 / n


async def main_async(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="mccgw-bench-"))
    os.chmod(tmp, 0o755)
    api.ratelimit.ANONYMOUS_LIMIT = 10**9  # the bare reference pays its Redis call, not a 429
    async with AsyncExitStack() as stack:
        db_url = stack.enter_context(fresh_database(tmp))
        redis_url = stack.enter_context(redis_server(tmp))
        from devchain.node.process import start_node

        keys_dir = tmp / "keys"
        node = start_node(data_dir=tmp / "chain", keys_dir=keys_dir, port=free_port(), slot_ms=20)
        stack.callback(node.stop)
        client = (await stack.enter_async_context(temporal())).client
        settings = Settings(
            environment="test", database_url=db_url, redis_url=redis_url,
            solana_rpc_url=node.url, chain_keys_dir=keys_dir, log_json=False,
            log_level="WARNING", temporal_address=client.service_client.config.target_host,
        )  # fmt: skip
        app = create_app(settings)

        @app.get("/bench/bare")
        async def bare() -> dict[str, Any]:
            return {"data": {"type": "bare", "id": "1", "attributes": {"ok": True}}}

        await stack.enter_async_context(app.router.lifespan_context(app))
        app.state.temporal = client
        app.state.task_queue = f"bench-{uuid.uuid4().hex[:8]}"
        deps = await stack.enter_async_context(worker_deps(settings))

        uids = [f"u_bench_{uuid.uuid4().hex[:8]}" for _ in range(4)]
        receivers = [f"u_recv_{uuid.uuid4().hex[:8]}" for _ in range(4)]
        project = await bench_project(
            app.state.session_maker, settings, name="bench-accept", scopes=SCOPES,
            users=uids + receivers, consenting=uids,
            limits={"mining": {"MCD": {"per_day": "100000000"}}},
        )  # fmt: skip
        secret = project.secret
        await asyncio.gather(
            funded_on_chain(deps, uids, 10**15, receivers),
            *(deps.gateway.ensure_custody_account(u, "MCD") for u in uids),
        )
        headers = project.headers
        http = await stack.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, timeout=60)
        )

        async def mine(i: int) -> None:
            body = signed_activity(uids[i % 4], secret, i)
            r = await http.post("/v1/mining/submit-activity", json=body, headers=headers)
            assert r.status_code == 202, r.text

        async def batch(i: int) -> None:
            items = [signed_activity(uids[k % 4], secret, i * BATCH + k) for k in range(BATCH)]
            body = {"activities": items, "idempotency_key": uuid.uuid4().hex}
            r = await http.post("/v1/mining/batch-submit", json=body, headers=headers)
            assert r.status_code == 200, r.text

        async def transfer(i: int) -> None:
            body = {
                "transfer_type": "bench", "from_uid": uids[i % 4], "to_uid": receivers[i % 4],
                "currency": "MCC", "amount": "0.001", "reference": {"i": i},
                "idempotency_key": uuid.uuid4().hex,
            }  # fmt: skip
            r = await http.post("/v1/transfer/request", json=body, headers=headers)
            assert r.status_code == 202, r.text

        async def bare_get(i: int) -> None:
            r = await http.get("/bench/bare")
            assert r.status_code == 200, r.text

        routes = (
            ("POST /v1/mining/submit-activity", mine),
            ("POST /v1/transfer/request (reference)", transfer),
            ("GET /bench/bare (reference)", bare_get),
        )
        for _, call in routes:  # warm-up: caches, compiled statements, connections
            await cpu_per_request(app, call, 50, args.flight, 100_000)
        await cpu_per_request(app, batch, 2, 2, 100_000)
        print(f"API + driver CPU ms per request ({args.n} requests, {args.flight} in flight):")
        for round_ in range(args.rounds):
            for name, call in routes:
                ms = await cpu_per_request(app, call, args.n, args.flight, (round_ + 1) * 10_000)
                print(f"  {name:40s} {ms:6.2f}")
            # Batches of 100 as bench.webhooks_mining sends them, 4 at once: CPU per item.
            n = max(4, args.n // 25)
            ms = await cpu_per_request(app, batch, n, 4, (round_ + 1) * 10_000) / BATCH
            print(f"  {'POST /v1/mining/batch-submit, per item':40s} {ms:6.2f}")
        # The accept phase of bench.webhooks_mining's 4 x 100 alone (no worker, no pump): the
        # wall time of four batches of one project sent at once, beside the CPU they cost this
        # process; what is beyond the CPU is waiting (PostgreSQL, the day row's lock, Redis).
        walls, cpus = [], []
        for round_ in range(args.batch_rounds):
            wall, cpu = time.perf_counter(), time.process_time()
            first = 500_000 + round_ * 4
            await asyncio.gather(*(batch(first + b) for b in range(4)))
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
            await app.state.after_commit.drain(30)
        walls.sort()
        print(
            f"4 x {BATCH} at once ({args.batch_rounds} rounds): wall median "
            f"{walls[len(walls) // 2]:.0f} ms (min {walls[0]:.0f}, max {walls[-1]:.0f}), "
            f"CPU median {sorted(cpus)[len(cpus) // 2]:.0f} ms"
        )
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            await cpu_per_request(app, mine, args.n, args.flight, 900_000)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--flight", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch-rounds", type=int, default=15)
    parser.add_argument("--profile", action="store_true", help="cProfile the mining run")
    asyncio.run(asyncio.wait_for(main_async(parser.parse_args()), 600))


if __name__ == "__main__":
    main()
