"""The door's manners toward a provider (``chain/rpc.py`` ``_post``, ``chain/door.py``): 429s
waited out per ``Retry-After``, outages and a node behind retried, a request budget shared
through Redis that queues and is never exceeded, and the real node's "already processed" and
"Blockhash not found" answers typed. Against the real node, behind an HTTP proxy of the test's
own that answers as a busy provider does (a real process in front of the real node)."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from redis.asyncio import Redis
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from chain.door import Budget, provider_of
from chain.errors import AlreadyProcessed, BlockhashNotFound, ChainRateLimited
from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.embedded import free_port
from core.metrics import CHAIN_RPC_BUDGET_WAIT, CHAIN_RPC_ERRORS


class Provider:
    """An HTTP proxy in front of the node: answers the next scripted refusals first, records
    when each request arrived."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.script: list[tuple[int, dict[str, str], bytes]] = []
        self.arrivals: list[float] = []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"

    async def answer(self, request: web.Request) -> web.Response:
        self.arrivals.append(time.monotonic())
        body = await request.read()
        if self.script:
            status, headers, text = self.script.pop(0)
            return web.Response(status=status, headers=headers, body=text)
        async with self.session.post(
            self.node, data=body, headers={"Content-Type": "application/json"}
        ) as up:
            return web.Response(status=up.status, body=await up.read())

    async def __aenter__(self) -> Provider:
        self.session = aiohttp.ClientSession()
        app = web.Application()
        app.router.add_post("/", self.answer)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.runner.cleanup()
        await self.session.close()


def _errors(provider: str, method: str, kind: str) -> float:
    return CHAIN_RPC_ERRORS.labels(provider, method, kind)._value.get()


@pytest.fixture(name="provider")
async def provider_fixture(chain_node: tuple[str, Path]) -> AsyncIterator[Provider]:
    async with Provider(chain_node[0]) as provider:
        yield provider


async def test_a_429_is_waited_out_per_retry_after(provider: Provider) -> None:
    name = provider_of(provider.url)
    before = _errors(name, "getSlot", "rate_limited")
    provider.script = [(429, {"Retry-After": "1"}, b"Too Many Requests")]
    async with ChainRpc(provider.url, retry_within=5) as rpc:
        started = time.monotonic()
        assert isinstance(await rpc.call("getSlot"), int)
    assert time.monotonic() - started >= 1.0
    assert provider.arrivals[1] - provider.arrivals[0] >= 1.0  # not one request before it said
    assert _errors(name, "getSlot", "rate_limited") == before + 1


async def test_a_retry_after_beyond_the_wait_limit_raises_at_once(provider: Provider) -> None:
    provider.script = [(429, {"Retry-After": "30"}, b"Too Many Requests")]
    async with ChainRpc(provider.url, retry_within=2) as rpc:
        started = time.monotonic()
        with pytest.raises(ChainRateLimited) as caught:
            await rpc.call("getSlot")
    assert caught.value.retry_after == 30 and time.monotonic() - started < 1
    assert len(provider.arrivals) == 1


async def test_outages_and_a_node_behind_are_retried(provider: Provider) -> None:
    name = provider_of(provider.url)
    behind = (
        b'{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Node is behind by 42 slots"}}'
    )
    provider.script = [(503, {}, b"busy"), (200, {}, behind), (502, {}, b"bad gateway")]
    before = _errors(name, "getBlockHeight", "node_behind")
    async with ChainRpc(provider.url, retry_within=10) as rpc:
        assert isinstance(await rpc.call("getBlockHeight"), int)
    assert len(provider.arrivals) == 4
    assert _errors(name, "getBlockHeight", "node_behind") == before + 1


async def test_the_budget_is_shared_queues_and_is_never_exceeded(
    provider: Provider, redis_url: str
) -> None:
    """Two processes' transports with one budget of 25 requests a second: 50 calls at once all
    succeed, queued, and no one-second window holds more than 25 requests."""
    rps = 25
    clients = [Redis.from_url(redis_url) for _ in range(2)]
    await clients[0].delete(Budget.key(provider_of(provider.url)))
    waits_before = CHAIN_RPC_BUDGET_WAIT.labels(provider_of(provider.url))._sum.get()
    rpcs = [
        ChainRpc(provider.url, retry_within=10, budget=Budget(r, rps), redis=r) for r in clients
    ]
    try:
        results = await asyncio.gather(*(rpcs[i % 2].call("getSlot") for i in range(50)))
    finally:
        for rpc in rpcs:
            await rpc.aclose()
    assert all(isinstance(slot, int) for slot in results)
    arrivals = sorted(provider.arrivals)
    busiest = max(sum(1 for t in arrivals if s <= t < s + 1.0) for s in arrivals)
    assert busiest <= rps, busiest
    assert arrivals[-1] - arrivals[0] >= 1.0  # 50 at 25 a second: queued, not refused
    assert CHAIN_RPC_BUDGET_WAIT.labels(provider_of(provider.url))._sum.get() > waits_before


async def test_a_429_pauses_every_process_sharing_the_budget(
    provider: Provider, redis_url: str
) -> None:
    r = Redis.from_url(redis_url)
    await r.delete(Budget.key(provider_of(provider.url)))
    other = Redis.from_url(redis_url)
    provider.script = [(429, {"Retry-After": "1"}, b"Too Many Requests")]
    async with (
        ChainRpc(provider.url, retry_within=5, budget=Budget(r, 100), redis=r) as one,
        ChainRpc(provider.url, retry_within=5, budget=Budget(other, 100), redis=other) as two,
    ):
        async with ChainRpc(provider.url, budget=Budget(r, 100)) as first:  # no retries
            with pytest.raises(ChainRateLimited):
                await first.call("getSlot")  # met the 429, told the budget, gave up
        started = time.monotonic()
        await asyncio.gather(one.call("getSlot"), two.call("getSlot"))
    assert time.monotonic() - started >= 0.9  # both waited the provider's second out


async def test_the_real_nodes_send_refusals_are_typed(chain_node: tuple[str, Path]) -> None:
    """A landed transaction sent again with preflight: "already processed"; one with a blockhash
    the node does not know: "Blockhash not found" (both -32002, as a validator answers)."""
    keys = load_or_create_keys(chain_node[1])
    payer = keys.fee_payer
    async with ChainRpc(chain_node[0]) as rpc:
        latest = (await rpc.call("getLatestBlockhash", [{"commitment": "processed"}]))["value"]
        ix = transfer(
            TransferParams(
                from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=1_000_000
            )
        )
        tx = VersionedTransaction(
            Message.new_with_blockhash([ix], payer.pubkey(), Hash.from_string(latest["blockhash"])),
            [payer],
        )
        raw = base64.b64encode(bytes(tx)).decode()
        await rpc.call("sendTransaction", [raw, {"encoding": "base64"}])
        with pytest.raises(AlreadyProcessed) as caught:
            await rpc.call("sendTransaction", [raw, {"encoding": "base64"}])
        assert caught.value.code == -32002
        stale = VersionedTransaction(
            Message.new_with_blockhash([ix], payer.pubkey(), Hash.new_unique()), [payer]
        )
        with pytest.raises(BlockhashNotFound):
            await rpc.call(
                "sendTransaction", [base64.b64encode(bytes(stale)).decode(), {"encoding": "base64"}]
            )


async def _script_calls(redis: Redis) -> int:
    stats = await redis.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{c}", {}).get("calls", 0)) for c in ("evalsha", "eval"))


async def test_a_lease_serves_a_writes_calls_in_a_row_with_one_round_trip(
    provider: Provider, redis_url: str
) -> None:
    """A write's four calls in a row (blockhash, fees, simulation, send) take their turns in the
    budget with one Redis round trip: the first takes a lease of four tokens while the bucket
    is full. The old budget made one round trip per call."""
    r = Redis.from_url(redis_url)
    key = Budget.key(provider_of(provider.url))
    await r.delete(key)
    async with ChainRpc(provider.url, retry_within=5, budget=Budget(r, 200), redis=r) as rpc:
        await rpc.call("getSlot")  # the transport's first call (its session opened)
        await asyncio.sleep(0.6)  # that lease ended
        before = await _script_calls(r)
        for _ in range(4):
            assert isinstance(await rpc.call("getSlot"), int)
        assert await _script_calls(r) - before == 1
        # the bucket counts the three lent tokens as still out until the lease ends
        tokens, lent = await r.hmget(key, "tokens", "lent")
        assert lent is not None and tokens is not None
        assert float(lent) == 3 and float(tokens) <= 40 - 4
        await asyncio.sleep(0.6)  # ended: the next call asks Redis again
        await rpc.call("getSlot")
        assert await _script_calls(r) - before == 2


async def test_leases_keep_the_shared_budget_and_stop_when_it_runs_low(
    provider: Provider, redis_url: str
) -> None:
    """Three processes with a budget of 40 a second (a bucket of 8, leases of 4), each making
    50 calls in a row: all succeed and no one-second window holds more than 40 requests (a
    guard of the bound: the old budget held it too, with no lease)."""
    rps = 40
    clients = [Redis.from_url(redis_url) for _ in range(3)]
    await clients[0].delete(Budget.key(provider_of(provider.url)))
    rpcs = [
        ChainRpc(provider.url, retry_within=10, budget=Budget(r, rps), redis=r) for r in clients
    ]

    async def in_a_row(rpc: ChainRpc) -> list[int]:
        return [await rpc.call("getSlot") for _ in range(50)]

    try:
        results = [s for one in await asyncio.gather(*map(in_a_row, rpcs)) for s in one]
    finally:
        for rpc in rpcs:
            await rpc.aclose()
    assert all(isinstance(slot, int) for slot in results)
    arrivals = sorted(provider.arrivals)
    busiest = max(sum(1 for t in arrivals if s <= t < s + 1.0) for s in arrivals)
    assert busiest <= rps, busiest
    assert arrivals[-1] - arrivals[0] >= 2.5  # 150 at (8 + 30.4) a second: queued
