"""Chain views, warm, beside a bare endpoint in the same run.

Starts a local chain node whose genesis holds the dev fixtures plus --accounts generated
auctions (real layouts, owned by the auction program) and as many loans, runs the real app
in-process (ASGI) on a scratch PostgreSQL and Redis, and times sequentially:

- bare: GET /bench/bare (no work, same app and middleware);
- single-account views: /v1/auction-solana/auction/{id}, /v1/lending/loan/{wallet}/{mint},
  /v1/territory/unit/{id}/nft?type=station;
- list views over the generated accounts: /v1/auction-solana/active (10,000 active auctions),
  /v1/lending/loans/{wallet} (one wallet with 10,000 loans).

Then fires a concurrent burst and reports how many getProgramAccounts the chain saw.
Rate limiting is switched off for these paths (it is measured in bench/access.py).

    .venv/bin/python bench/views.py [--accounts 10000] [--requests 1000] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import api.ratelimit
from api.app import create_app
from chain.ecosystem import AUCTION_PROGRAM_ID, LENDING_PROGRAM_ID
from chain.ecosystem import auction as au
from chain.ecosystem import lending as ln
from chain.ecosystem.fixtures import ACTIVE_UNTIL, EPOCH, MCC, POOL_NAME, World, dev_world, wallet
from chain.node.process import start_node
from core.config import Settings
from core.embedded import free_port
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


async def measure(call: Callable[[], Awaitable[httpx.Response]], n: int, s: float) -> list[float]:
    for _ in range(30):  # warm-up: snapshots loaded, token reads cached, connections open
        (await call()).raise_for_status()
    samples: list[float] = []
    deadline = time.monotonic() + s
    for _ in range(n):
        started = time.perf_counter()
        response = await call()
        samples.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{response.request.url}: {response.status_code} {response.text}")
        if time.monotonic() > deadline:
            break
    return samples


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
            results = {}
            for name, path in variants.items():

                def call(p: str = path) -> Awaitable[httpx.Response]:
                    return client.get(p)

                results[name] = await measure(call, n, seconds)
            calls = app.state.views.reader.calls
            before = calls["getProgramAccounts"]
            started = time.perf_counter()
            burst = await asyncio.gather(
                *(client.get(variants[f"active ({accounts})"]) for _ in range(200))
            )
            burst_ms = (time.perf_counter() - started) * 1000
            assert {r.status_code for r in burst} == {200}
            await asyncio.sleep(0.1)
            during = calls["getProgramAccounts"] - before
            refresh = app.state.views.auction.ttl

    base = pct(results["bare"], 0.5)
    print(f"{'variant':<18}{'n':>6}{'p50 ms':>9}{'p99 ms':>9}{'+p50 ms':>10}")
    for name, samples in results.items():
        p50, p99 = pct(samples, 0.5), pct(samples, 0.99)
        print(f"{name:<18}{len(samples):>6}{p50:>9.2f}{p99:>9.2f}{p50 - base:>10.2f}")
    print(
        f"burst: 200 concurrent list requests in {burst_ms:.0f} ms -> {during} getProgramAccounts "
        f"(refresh interval {refresh} s); whole run: {dict(app.state.views.reader.calls)}"
    )
    print(f"(mean bare {statistics.fmean(results['bare']):.2f} ms; in-process ASGI, sequential)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0, help="cap per variant")
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
