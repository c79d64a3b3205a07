"""The one JSON-RPC transport (``chain/rpc.py``): calls and batches against the real node, and
its error map against a small HTTP server of the test's own, since the node never answers
429, 5xx or garbage (what an RPC provider in front of a cluster does)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp import web

from chain.blocks import BlockReader
from chain.errors import ChainRateLimited, ChainRpcError, ChainUnavailable
from chain.reads import ChainReads
from chain.rpc import ChainRpc, retry_after_seconds
from core.embedded import free_port
from views.cache import ProgramCache

# --------------------------------------------------------------------- the real node


@pytest.fixture(name="rpc")
async def rpc_fixture(chain_node: tuple[str, Path]) -> AsyncIterator[ChainRpc]:
    async with ChainRpc(chain_node[0]) as rpc:
        yield rpc


async def test_calls_and_batches_against_the_node(rpc: ChainRpc) -> None:
    slot = await rpc.call("getSlot", [{"commitment": "processed"}])
    assert isinstance(slot, int) and slot >= 0
    assert await rpc.call("getHealth") == "ok"
    answers = await rpc.batch("getBalance", [["11111111111111111111111111111111"]] * 3)
    assert len(answers) == 3 and all(
        isinstance(ChainRpc.result("x", a)["value"], int) for a in answers
    )
    assert await rpc.batch("getSlot", []) == []
    raw = await rpc.call_raw("getGenesisHash")
    assert ChainRpc.decode("getGenesisHash", raw) == await rpc.call("getGenesisHash")
    assert rpc.calls["getBalance"] == 3 and rpc.calls["getGenesisHash"] == 2


async def test_a_json_rpc_error_of_the_node_keeps_its_code(rpc: ChainRpc) -> None:
    with pytest.raises(ChainRpcError) as caught:
        await rpc.call("noSuchMethod")
    assert caught.value.code == -32601 and not isinstance(caught.value, ChainUnavailable)
    with pytest.raises(ChainRpcError) as caught:
        await rpc.call("getBalance", ["not-an-address"])
    assert caught.value.code == -32602


async def test_an_unreachable_node_is_unavailable() -> None:
    async with ChainRpc(f"http://127.0.0.1:{free_port()}") as rpc:
        with pytest.raises(ChainUnavailable):
            await rpc.call("getSlot")


# --------------------------------------------------------------------- a provider's answers

# method -> (HTTP status, headers, body): what the scripted provider answers a request with.
Scripted = tuple[int, dict[str, str], Any]


def _script(method: str, ids: list[Any]) -> Scripted:
    retry_date = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)

    def error(code: int, message: str) -> Any:
        return [
            {"jsonrpc": "2.0", "id": i, "error": {"code": code, "message": message}} for i in ids
        ]

    match method:
        case "limited":
            return 429, {"Retry-After": "7"}, {"jsonrpc": "2.0", "error": {"code": 429}}
        case "limitedUntil":
            return 429, {"Retry-After": retry_date}, "Too Many Requests"
        case "limitedBare":
            return 429, {}, "Too Many Requests"
        case "down":
            return 503, {}, "<html>Service Unavailable</html>"
        case "forbidden":
            return 403, {}, "forbidden"
        case "html":
            return 200, {}, "<html>hello</html>"
        case "behind":
            return 200, {}, error(-32005, "Node is behind by 42 slots")
        case "internal":
            return 200, {}, error(-32603, "Internal error")
        case "refused":
            return 200, {}, error(-32602, "Invalid params")
        case "short":  # a batch answered with one answer only
            return 200, {}, [{"jsonrpc": "2.0", "id": ids[0], "result": 1}]
        case "empty":
            return 200, {}, [{"jsonrpc": "2.0", "id": i} for i in ids]
    return 200, {}, [{"jsonrpc": "2.0", "id": i, "result": method} for i in ids]


@pytest.fixture(name="provider")
async def provider_fixture() -> AsyncIterator[str]:
    async def answer(request: web.Request) -> web.Response:
        doc = orjson.loads(await request.read())
        calls = doc if isinstance(doc, list) else [doc]
        method = calls[0]["method"]
        if method == "slow":
            await asyncio.sleep(5)
        status, headers, body = _script(method, [c["id"] for c in calls])
        if isinstance(body, list) and not isinstance(doc, list):
            body = body[0]
        text = body if isinstance(body, str) else orjson.dumps(body).decode()
        return web.Response(status=status, headers=headers, text=text)

    async def limited(request: web.Request) -> web.Response:
        return web.Response(status=429, headers={"Retry-After": "3"}, text="slow down")

    app = web.Application()
    app.router.add_post("/", answer)
    app.router.add_post("/limited", limited)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        await runner.cleanup()


async def test_429_is_rate_limited_with_the_providers_retry_after(provider: str) -> None:
    async with ChainRpc(provider) as rpc:
        with pytest.raises(ChainRateLimited) as caught:
            await rpc.call("limited")
        assert caught.value.retry_after == 7.0
        assert isinstance(caught.value, ChainUnavailable)  # retryable, as every outage
        with pytest.raises(ChainRateLimited) as caught:
            await rpc.call("limitedUntil")
        assert caught.value.retry_after is not None and 25 <= caught.value.retry_after <= 30
        with pytest.raises(ChainRateLimited) as caught:
            await rpc.batch("limitedBare", [[], []])
        assert caught.value.retry_after is None


@pytest.mark.parametrize("method", ["down", "forbidden", "html", "behind", "internal", "empty"])
async def test_outages_and_garbage_are_unavailable(provider: str, method: str) -> None:
    async with ChainRpc(provider) as rpc:
        with pytest.raises(ChainUnavailable) as caught:
            await rpc.call(method)
        assert not isinstance(caught.value, ChainRateLimited)
        assert caught.value.args[0].startswith(f"{method}: ")


async def test_a_refusal_is_an_rpc_error_and_batches_keep_each_answer(provider: str) -> None:
    async with ChainRpc(provider) as rpc:
        with pytest.raises(ChainRpcError) as caught:
            await rpc.call("refused")
        assert caught.value.code == -32602
        answers = await rpc.batch("refused", [[1], [2]])
        for answer in answers:  # each answer's error is read on its own
            with pytest.raises(ChainRpcError):
                ChainRpc.result("refused", answer)
        assert [ChainRpc.result("echo", a) for a in await rpc.batch("echo", [[1], [2]])] == [
            "echo",
            "echo",
        ]
        with pytest.raises(ChainUnavailable, match="1 answers to 2 calls"):
            await rpc.batch("short", [[1], [2]])


async def test_a_slow_answer_is_cut_at_the_time_limit(provider: str) -> None:
    async with ChainRpc(provider, timeout=5) as rpc:
        started = asyncio.get_running_loop().time()
        with pytest.raises(ChainUnavailable, match=r"no answer within 0\.2 s"):
            await rpc.call("slow", time_limit=0.2)
        assert asyncio.get_running_loop().time() - started < 2


async def test_every_reader_meets_the_providers_429_through_the_one_door(provider: str) -> None:
    """The gateway's reads, the deposit watcher's blocks and the chain views all speak through
    ``ChainRpc``: a provider's rate limit reaches each of them as the same typed error."""
    async with ChainRpc(provider + "limited") as rpc:
        readers = {
            "gateway reads": ChainReads(rpc, "finalized", poll_interval=0.01).block_height(),
            "blocks": BlockReader(rpc).finalized_slot(),
            "views": ProgramCache(rpc, "11111111111111111111111111111111", (), 1.0).get(),
        }
        for name, read in readers.items():
            with pytest.raises(ChainRateLimited) as caught:
                await read
            assert caught.value.retry_after == 3.0, name
        assert rpc.calls == {"getBlockHeight": 1, "getSlot": 1, "getProgramAccounts": 1}


def test_retry_after_reads_seconds_and_dates() -> None:
    assert retry_after_seconds(None) is None
    assert retry_after_seconds(" 12 ") == 12.0
    assert retry_after_seconds("soon") is None
    past = format_datetime(datetime.now(UTC) - timedelta(seconds=30), usegmt=True)
    assert retry_after_seconds(past) == 0.0


# --------------------------------------------------------------------- the HTTP client itself


def _built_outside_any_loop(url: str) -> ChainRpc:
    return ChainRpc(url)  # as api/app.py may: the session is opened by the first request


async def test_the_session_opens_in_the_running_loop_and_closes_with_the_transport(
    chain_node: tuple[str, Path],
) -> None:
    rpc = await asyncio.to_thread(_built_outside_any_loop, chain_node[0])
    assert await rpc.call("getHealth") == "ok"
    await rpc.aclose()
    with pytest.raises(RuntimeError):  # a closed transport is not reopened behind one's back
        await rpc.call("getHealth")
    await rpc.aclose()  # twice is harmless
    never_used = ChainRpc(chain_node[0])
    await never_used.aclose()
    with pytest.raises(RuntimeError):
        await never_used.call("getHealth")


async def test_an_answer_cut_off_midway_is_unavailable() -> None:
    """A provider that drops the connection after the headers (a proxy restarting): the
    truncated body is an outage, retried like one, never a half-read answer."""

    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        writer.write(b"Content-Length: 1000\r\n\r\n" + b'{"jsonrpc": "2.0", "id": 1, "res')
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(cut, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with ChainRpc(f"http://127.0.0.1:{port}/") as rpc:
            with pytest.raises(ChainUnavailable, match=r"^getSlot: "):
                await rpc.call("getSlot")
    finally:
        server.close()
        await server.wait_closed()
