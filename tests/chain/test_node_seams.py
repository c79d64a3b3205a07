"""The node's seams for what wraps or listens to it (devchain/node/rpc/__init__.py): middlewares
around every JSON-RPC call and every HTTP request, and listeners on the slot clock and on each
landed transaction. In process, on a chain of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from devchain.node.genesis import open_chain
from devchain.node.rpc import Call, Params, Rpc, handle_body
from devchain.node.server import make_app
from devchain.node.svm import Chain, RpcError


def _chain(root: Path) -> Chain:
    return open_chain(root / "data", root / "keys", fixtures_dir=None)


@pytest.fixture(name="chain")
def chain_fixture(tmp_path: Path) -> Iterator[Chain]:
    chain = _chain(tmp_path)
    yield chain
    chain.close()


def _ask(rpc: Rpc, method: str, *params: Any) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    return handle_body(rpc, body.encode())


def test_middlewares_wrap_every_call_outermost_first(chain: Chain, tmp_path: Path) -> None:
    seen: list[str] = []
    other = _chain(tmp_path / "other")

    def log(rpc: Rpc, name: str, params: Params, call_next: Call) -> Any:
        seen.append(name)
        return call_next(rpc, name, params)

    def weather(rpc: Rpc, name: str, params: Params, call_next: Call) -> Any:
        if name == "requestAirdrop":
            raise RpcError(-32005, "Node is behind")
        if name == "getGenesisHash":  # answered from another view of the chain
            return call_next(Rpc(other), name, params)
        return call_next(rpc, name, params)

    rpc = Rpc(chain, [log, weather])
    refused = _ask(rpc, "requestAirdrop", str(Keypair().pubkey()), 5)
    assert refused["error"] == {"code": -32005, "message": "Node is behind"}
    assert _ask(rpc, "getGenesisHash")["result"] == other.genesis_hash != chain.genesis_hash
    assert _ask(rpc, "noSuchMethod")["error"]["code"] == -32601
    assert seen == ["requestAirdrop", "getGenesisHash", "noSuchMethod"]
    assert _ask(Rpc(chain), "getGenesisHash")["result"] == chain.genesis_hash
    other.close()


def test_listeners_hear_each_slot_and_each_landed_transaction(chain: Chain) -> None:
    slots: list[int] = []
    landed: list[tuple[str, list[Pubkey]]] = []

    def broken(*args: Any) -> None:
        raise RuntimeError("a listener's bug")

    chain.on_slot += [broken, slots.append]
    chain.on_landed += [broken, lambda rec, changed: landed.append((rec["signature"], changed))]
    start = chain.slot
    chain.tick()
    chain.tick()
    to = Keypair().pubkey()
    sig = _ask(Rpc(chain), "requestAirdrop", str(to), 1_000_000_000)["result"]

    assert slots == [start + 1, start + 2]
    assert landed == [(sig, [chain.faucet.pubkey(), to])]


async def test_app_takes_http_and_rpc_middlewares(tmp_path: Path) -> None:
    chain = _chain(tmp_path)  # the app closes it on cleanup
    calls: list[str] = []

    @web.middleware
    async def rate_limit(request: web.Request, handler: Any) -> web.StreamResponse:
        if request.headers.get("X-Over-Limit"):
            return web.Response(status=429, headers={"Retry-After": "1"})
        return await handler(request)

    def count(rpc: Rpc, name: str, params: Params, call_next: Call) -> Any:
        calls.append(name)
        return call_next(rpc, name, params)

    app = make_app(chain, 60_000, middlewares=[rate_limit], rpc_middlewares=[count])
    async with TestClient(TestServer(app)) as client:
        body = {"jsonrpc": "2.0", "id": 1, "method": "getHealth"}
        refused = await client.post("/", json=body, headers={"X-Over-Limit": "1"})
        assert (refused.status, refused.headers["Retry-After"]) == (429, "1")
        ok = await client.post("/", json=body)
        assert (ok.status, await ok.json()) == (200, {"jsonrpc": "2.0", "result": "ok", "id": 1})
    assert calls == ["getHealth"]
