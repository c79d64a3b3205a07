"""Several RPC providers behind the one door (``chain/providers.py``, docs/chain.md "Several
providers"): the real node, reached directly and through proxies of the test's own (real HTTP
servers in front of it) that die mid-run or answer as a lagging node does."""

from __future__ import annotations

import asyncio
import base64
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import orjson
import pytest
from aiohttp import web
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.embedded import free_port


class Proxy:
    """An HTTP server in front of the node: counts methods, can lag (slots ``lag`` lower,
    statuses null) and can be taken down and brought back on the same port."""

    def __init__(self, node: str, lag: int = 0) -> None:
        self.node, self.lag = node, lag
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.methods: Counter[str] = Counter()
        self.runner: web.AppRunner | None = None

    async def answer(self, request: web.Request) -> web.Response:
        body = await request.read()
        doc = orjson.loads(body)
        method = doc["method"] if isinstance(doc, dict) else doc[0]["method"]
        self.methods[method] += 1
        async with self.session.post(
            self.node, data=body, headers={"Content-Type": "application/json"}
        ) as up:
            got = orjson.loads(await up.read())
        if self.lag and isinstance(got, dict) and "result" in got:
            if method == "getSlot":
                got["result"] -= self.lag
            elif method == "getSignatureStatuses":
                got["result"]["context"]["slot"] -= self.lag
                got["result"]["value"] = [None for _ in got["result"]["value"]]
        return web.Response(body=orjson.dumps(got), content_type="application/json")

    async def up(self) -> None:
        app = web.Application()
        app.router.add_post("/", self.answer)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def down(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    async def __aenter__(self) -> Proxy:
        self.session = aiohttp.ClientSession()
        await self.up()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.down()
        await self.session.close()


@pytest.fixture(name="node")
def node_fixture(chain_node: tuple[str, Path]) -> str:
    return chain_node[0]


@pytest.fixture(name="proxies")
async def proxies_fixture(node: str) -> AsyncIterator[tuple[Proxy, Proxy]]:
    async with Proxy(node) as one, Proxy(node) as two:
        yield one, two


async def _signed(rpc: ChainRpc, keys_dir: Path) -> bytes:
    payer = load_or_create_keys(keys_dir).fee_payer
    latest = (await rpc.call("getLatestBlockhash", [{"commitment": "confirmed"}]))["value"]
    ix = transfer(
        TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=10**6)
    )
    msg = Message.new_with_blockhash([ix], payer.pubkey(), Hash.from_string(latest["blockhash"]))
    return bytes(VersionedTransaction(msg, [payer]))


async def test_reads_go_on_when_a_provider_dies_mid_run(
    proxies: tuple[Proxy, Proxy], node: str
) -> None:
    """Two providers, one killed mid-run: every call of the run completes on the other, fast
    (failover at once, not after a backoff), and the dead one is benched."""
    dying, _ = proxies
    async with ChainRpc([dying.url, node], retry_within=10) as rpc:
        assert isinstance(await rpc.call("getSlot"), int)
        started = time.monotonic()

        async def reader() -> int:
            done = 0
            while time.monotonic() - started < 2.0:
                await rpc.call("getBlockHeight")
                done += 1
            return done

        async def killer() -> None:
            await asyncio.sleep(0.5)
            await dying.down()

        counts = await asyncio.gather(*(reader() for _ in range(8)), killer())
        assert all(isinstance(c, int) and c > 5 for c in counts[:8])
        for _ in range(50):  # it keeps failing its probes: benched
            if rpc.providers.health()[0]["benched"]:
                break
            await asyncio.sleep(0.1)
        assert [h["benched"] for h in rpc.providers.health()] == [True, False]


async def test_a_send_goes_to_every_healthy_provider(
    proxies: tuple[Proxy, Proxy], chain_node: tuple[str, Path]
) -> None:
    one, two = proxies
    async with ChainRpc([one.url, two.url], retry_within=10) as rpc:
        raw = base64.b64encode(await _signed(rpc, chain_node[1])).decode()
        sig = await rpc.call(
            "sendTransaction", [raw, {"encoding": "base64", "skipPreflight": True}]
        )
        assert one.methods["sendTransaction"] == two.methods["sendTransaction"] == 1
        for _ in range(100):
            got = await rpc.call("getSignatureStatuses", [[sig]])
            if got["value"][0] is not None:
                break
            await asyncio.sleep(0.05)
        assert got["value"][0] is not None  # landed once: the same bytes, one signature


async def test_a_lagging_provider_never_says_not_landed_and_is_benched(
    node: str, chain_node: tuple[str, Path]
) -> None:
    async with (
        Proxy(node, lag=500) as lagging,
        ChainRpc([lagging.url, node], retry_within=10, max_lag=1000) as rpc,
    ):
        # a lag within what the bench tolerates: it is asked, and says null
        raw = base64.b64encode(await _signed(rpc, chain_node[1])).decode()
        cfg = {"encoding": "base64", "skipPreflight": True}
        sig = await rpc.call("sendTransaction", [raw, cfg])
        await asyncio.sleep(0.3)
        for _ in range(20):  # the lagging one says null every time; the merge does not
            got = await rpc.call("getSignatureStatuses", [[sig]])
            assert got["value"][0] is not None, got
        assert lagging.methods["getSignatureStatuses"] >= 1
        rpc.providers.max_lag = 50  # now more than the bench tolerates
        for _ in range(50):  # its probe shows the lag: benched
            if rpc.providers.health()[0]["benched"]:
                break
            await asyncio.sleep(0.1)
        assert rpc.providers.health()[0]["benched"] is True
        lagging.lag = 0  # caught up: probed back
        for _ in range(50):
            if not rpc.providers.health()[0]["benched"]:
                break
            await asyncio.sleep(0.1)
        assert rpc.providers.health()[0]["benched"] is False


async def test_a_dead_provider_is_probed_back(proxies: tuple[Proxy, Proxy], node: str) -> None:
    dying, _ = proxies
    async with ChainRpc([dying.url, node], retry_within=10) as rpc:
        await rpc.call("getSlot")
        await dying.down()
        for _ in range(60):
            if rpc.providers.health()[0]["benched"]:
                break
            await asyncio.sleep(0.1)
        assert rpc.providers.health()[0]["benched"] is True
        await dying.up()
        for _ in range(60):
            if not rpc.providers.health()[0]["benched"]:
                break
            await asyncio.sleep(0.1)
        assert rpc.providers.health()[0]["benched"] is False
