"""Chain views, warm, beside a bare endpoint in the same run.

Starts a local chain node whose genesis holds the dev fixtures plus --accounts generated
auctions (real layouts, owned by the auction program) and as many loans, runs the real app
in-process (ASGI) on a scratch PostgreSQL and Redis, and times sequentially:

- bare: GET /bench/bare (no work, same app and middleware), interleaved with the views;
- single-account views: /v1/auction-solana/auction/{id}, /v1/lending/loan/{wallet}/{mint},
  /v1/territory/unit/{id}/nft?type=station;
- list views over the generated accounts: /v1/auction-solana/active (10,000 active auctions),
  /v1/lending/loans/{wallet} (one wallet with 10,000 loans).

Two passes: A with the snapshots re-read every refresh interval as in production (the re-reads
of the two 10,000-account programs compete for the CPU), B with the snapshots held (the views'
own cost). Then fires a concurrent burst and reports how many getProgramAccounts the chain saw.
Rate limiting is switched off for these paths (it is measured in bench/access.py).

    .venv/bin/python bench/views.py [--accounts 10000] [--requests 600] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import api.ratelimit
from api.app import create_app
from bench._procs import pct
from bench._report import record
from chain.ecosystem import AUCTION_PROGRAM_ID, LENDING_PROGRAM_ID
from chain.ecosystem import auction as au
from chain.ecosystem import lending as ln
from core.config import Settings
from core.embedded import free_port
from devchain.fixtures import ACTIVE_UNTIL, EPOCH, MCC, POOL_NAME, World, dev_world, wallet
from devchain.node.process import start_node
from tests.services import fresh_database, redis_server

BASE = "http://127.0.0.1:8000"
BORROWER = wallet("bench:borrower")


def generated(n: int) -> World:
    """The dev world plus n active auctions (ids from 100) and n loans of one borrower."""
    w = dev_world()
    pool = ln.pool_pda(POOL_NAME)[0]
    for k in range(n):
        aid = 100 + k
        addr, bump = au.auction_pda(aid)
        buy_now = 900 * MCC if k % 3 == 0 else None
        bidder = wallet(f"bench:bidder{k % 50}") if k % 2 else None
        w.anchor(
            addr,
            AUCTION_PROGRAM_ID,
            au.Auction(
                aid,
                0,
                1,
                k % 4,
                k + 1,
                wallet("authority"),
                10 * MCC,
                buy_now,
                12 * MCC if bidder else 0,
                bidder,
                1 if bidder else 0,
                EPOCH,
                ACTIVE_UNTIL - k,
                0,
                wallet("team"),
                0,
                None,
                EPOCH,
                None,
                bump,
            ),
        )
        mint = wallet(f"bench:nft{k}")
        laddr, lbump = ln.loan_pda(BORROWER, mint)
        w.anchor(
            laddr,
            LENDING_PROGRAM_ID,
            ln.Loan(
                BORROWER,
                pool,
                mint,
                0,
                1_000 * MCC,
                100 * MCC,
                0,
                1000,
                1,
                0,
                EPOCH + k,
                ACTIVE_UNTIL,
                EPOCH + k,
                None,
                None,
                lbump,
            ),
        )
    return w


def add_bare_route(app: FastAPI) -> None:
    @app.get("/bench/bare")
    async def bare() -> dict[str, Any]:
        return {"data": {"type": "bare", "id": "1", "attributes": {}}}


async def measure(
    client: httpx.AsyncClient, paths: dict[str, str], n: int, seconds: float
) -> dict[str, list[float]]:
    """Round-robin over the variants, so every one sees the same machine load and the same
    background refreshes (the machine this runs on is shared)."""
    for path in paths.values():  # warm-up: snapshots loaded, token reads cached
        for _ in range(10):
            (await client.get(path)).raise_for_status()
    samples: dict[str, list[float]] = {name: [] for name in paths}
    deadline = time.monotonic() + seconds
    for _ in range(n):
        for name, path in paths.items():
            started = time.perf_counter()
            response = await client.get(path)
            samples[name].append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                raise SystemExit(f"{path}: {response.status_code} {response.text}")
        if time.monotonic() > deadline:
            break
    return samples


async def run(settings: Settings, accounts: int, n: int, seconds: float) -> None:
    api.ratelimit.EXEMPT_PREFIXES = (
        *api.ratelimit.EXEMPT_PREFIXES,
        "/bench/",
        "/v1/auction-solana/",
        "/v1/lending/",
        "/v1/territory/",
    )
    app = create_app(settings)
    add_bare_route(app)
    station1 = "/v1/territory/unit/1/nft?type=station"
    loan = f"/v1/lending/loan/{BORROWER}/{wallet('bench:nft7')}"
    variants = {
        "bare": "/bench/bare",
        "auction/{id}": "/v1/auction-solana/auction/1",
        "lending/loan": loan,
        "territory/unit": station1,
        f"active ({accounts})": "/v1/auction-solana/active",
        f"loans ({accounts})": f"/v1/lending/loans/{BORROWER}",
    }
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE, timeout=60) as client:
            first = await client.get("/v1/auction-solana/active")
            assert first.json()["meta"]["total"] >= accounts, first.text
            views = app.state.views
            programs = (views.territory, views.auction, views.fragment, views.lending)
            results = await measure(client, variants, n, seconds)
            # again with the snapshots held (no re-read during the loop): the views' own cost
            for cache in programs:
                cache.ttl = cache.max_stale = 3600.0
            held = await measure(client, variants, n, seconds)
            for cache in programs:
                cache.ttl, cache.max_stale = settings.views_refresh_seconds, 5.0
            calls = views.reader.calls
            before = calls["getProgramAccounts"]
            started = time.perf_counter()
            burst = await asyncio.gather(
                *(client.get(variants[f"active ({accounts})"]) for _ in range(200))
            )
            burst_ms = (time.perf_counter() - started) * 1000
            assert {r.status_code for r in burst} == {200}
            await asyncio.sleep(0.1)
            during = calls["getProgramAccounts"] - before
            auction_cost, lending_cost = views.auction.cost, views.lending.cost

    print(
        "p50/p99 ms; A = snapshots re-read every interval (as in production), "
        "B = snapshots held (the views' own cost)"
    )
    print(f"{'variant':<18}{'n':>6}{'A p50':>8}{'A p99':>8}{'B p50':>8}{'B p99':>8}{'B-bare':>8}")
    base = pct(held["bare"], 0.5)
    for name in results:
        a, b = results[name], held[name]
        print(
            f"{name:<18}{len(a):>6}{pct(a, 0.5):>8.2f}{pct(a, 0.99):>8.2f}"
            f"{pct(b, 0.5):>8.2f}{pct(b, 0.99):>8.2f}{pct(b, 0.5) - base:>8.2f}"
        )
    print(
        f"burst: 200 concurrent list requests in {burst_ms:.0f} ms -> {during} getProgramAccounts; "
        f"last refresh of the auction / lending program took {auction_cost:.2f} / "
        f"{lending_cost:.2f} s; whole run: {dict(views.reader.calls)}"
    )
    print(f"(mean bare {statistics.fmean(held['bare']):.2f} ms; in-process ASGI, sequential)")
    record(
        "views",
        {
            name: {"p50_ms": pct(results[name], 0.5), "p99_ms": pct(results[name], 0.99)}
            for name in results
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=60.0, help="cap per pass (two passes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        t0 = time.monotonic()
        generated(args.accounts).write(tmp / "accounts")
        node = start_node(
            tmp / "chain",
            tmp / "keys",
            free_port(),
            slot_ms=400,
            accounts_dir=tmp / "accounts",
            fixtures=False,
            ready_timeout=120,
        )
        took = time.monotonic() - t0
        print(f"node with {args.accounts} generated auctions and loans up in {took:.1f} s")
        try:
            with fresh_database(tmp) as db_url, redis_server(tmp) as redis_url:
                settings = Settings(
                    environment="test",
                    database_url=db_url,
                    redis_url=redis_url,
                    log_level="WARNING",
                    solana_rpc_url=node.url,
                    chain_keys_dir=tmp / "keys",
                    temporal_address="127.0.0.1:1",
                )
                asyncio.run(run(settings, args.accounts, args.requests, args.seconds))
        finally:
            node.stop()


if __name__ == "__main__":
    main()
