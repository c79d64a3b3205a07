"""The PubSub websocket, as a validator serves it on its RPC port + 1: JSON-RPC 2.0 requests
(``accountSubscribe`` ... ``rootUnsubscribe``, ``getVersion``) with the validator's parameter
checks and error answers, each connection's notifications sent in order through its own
queue. The subscriptions themselves live in ``devchain/node/pubsub.py``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from devchain.node.ledger import RpcError
from devchain.node.pubsub import Hub, Send, Subscription
from devchain.node.rpc.dispatch import API_VERSION, error, registrar
from devchain.node.rpc.dispatch import invalid as _invalid
from devchain.node.rpc.params import commitment, config, pubkey, signature
from devchain.node.svm import Chain, Commitment

log = logging.getLogger("devchain.node")

MAX_QUEUED = 50_000  # notifications waiting for a slow client before it is disconnected
MAX_FILTERS = 4
ACCOUNT_ENCODINGS = ("binary", "base58", "base64", "jsonParsed")
TX_ENCODINGS = ("json", "jsonParsed", "base58", "base64")
DETAILS = ("full", "accounts", "signatures", "none")
HUB = web.AppKey("hub", Hub)

Handler = Callable[[Hub, Send, list[Any]], Any]
HANDLERS: dict[str, Handler] = {}
_handler = registrar(HANDLERS)


def _key(value: Any, thing: str) -> Any:
    try:
        return pubkey(value) if thing != "signature" else signature(value)
    except RpcError:
        raise _invalid(f"Invalid Request: Invalid {thing} provided") from None


def _one_of(cfg: dict[str, Any], name: str, allowed: tuple[str, ...]) -> None:
    if cfg.get(name) is not None and cfg[name] not in allowed:
        raise _invalid(f"Invalid params: unknown variant `{cfg[name]}` for `{name}`")


def _filters(cfg: dict[str, Any]) -> list[Any]:
    filters = cfg.get("filters") or []
    if not isinstance(filters, list):
        raise _invalid("Invalid params: filters must be a list")
    if len(filters) > MAX_FILTERS:
        raise _invalid(f"Too many filters provided; max {MAX_FILTERS}")
    for f in filters:
        ok = isinstance(f, dict) and len(f) == 1 and next(iter(f)) in _FILTER_KINDS
        if ok and "memcmp" in f:
            mc = f["memcmp"]
            ok = isinstance(mc, dict) and isinstance(mc.get("offset"), int)
            ok = ok and isinstance(mc.get("bytes"), str) and len(mc["bytes"]) <= 128
        if not ok:
            raise _invalid(f"Invalid param: invalid filter {json.dumps(f)}")
    return filters


_FILTER_KINDS = ("dataSize", "memcmp", "tokenAccountState")


def _sub(hub: Hub, sub: Subscription) -> int:
    return hub.subscribe(sub)


@_handler("accountSubscribe")
def account_subscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
    key = _key(params[0] if params else None, "pubkey")
    cfg = config(params, 1)
    _one_of(cfg, "encoding", ACCOUNT_ENCODINGS)
    return _sub(hub, Subscription(0, "account", send, commitment(cfg), key, cfg))


@_handler("programSubscribe")
def program_subscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
    key = _key(params[0] if params else None, "pubkey")
    cfg = config(params, 1)
    _one_of(cfg, "encoding", ACCOUNT_ENCODINGS)
    cfg = {**cfg, "filters": _filters(cfg)}
    return _sub(hub, Subscription(0, "program", send, commitment(cfg), key, cfg))


@_handler("signatureSubscribe")
def signature_subscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
    sig = _key(params[0] if params else None, "signature")
    cfg = config(params, 1)
    sub = Subscription(0, "signature", send, commitment(cfg), sig, cfg)
    sub.received = bool(cfg.get("enableReceivedNotification"))
    return _sub(hub, sub)


@_handler("logsSubscribe")
def logs_subscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
    what = params[0] if params else None
    key = None
    if isinstance(what, dict) and set(what) == {"mentions"} and isinstance(what["mentions"], list):
        if len(what["mentions"]) != 1:
            raise _invalid("Invalid Request: Only 1 address supported")
        key = _key(what["mentions"][0], "mentions")
    elif what not in ("all", "allWithVotes"):  # there are no vote transactions to leave out
        raise _invalid("Invalid params: expected `all`, `allWithVotes` or {mentions: [address]}")
    cfg = config(params, 1)
    return _sub(hub, Subscription(0, "logs", send, commitment(cfg), key, cfg))


@_handler("blockSubscribe")
def block_subscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
    what = params[0] if params else None
    key = None
    if isinstance(what, dict) and set(what) == {"mentionsAccountOrProgram"}:
        key = _key(what["mentionsAccountOrProgram"], "mentions_account_or_program")
    elif what != "all":
        raise _invalid("Invalid params: expected `all` or {mentionsAccountOrProgram: address}")
    cfg = config(params, 1)
    c = commitment(cfg)
    if c is Commitment.PROCESSED:
        raise _invalid("Method does not support commitment below `confirmed`")
    _one_of(cfg, "encoding", TX_ENCODINGS)
    _one_of(cfg, "transactionDetails", DETAILS)
    return _sub(hub, Subscription(0, "block", send, c, key, cfg))


@_handler("slotSubscribe")
def slot_subscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
    return _sub(hub, Subscription(0, "slot", send))


@_handler("rootSubscribe")
def root_subscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
    return _sub(hub, Subscription(0, "root", send))


@_handler("getVersion")
def get_version(hub: Hub, send: Send, params: list[Any]) -> Any:
    return {"solana-core": API_VERSION, "feature-set": 0}


def _unsubscriber(kind: str) -> Handler:
    def unsubscribe(hub: Hub, send: Send, params: list[Any]) -> Any:
        if len(params) != 1:
            raise _invalid("Invalid params: expected one subscription id")
        return hub.unsubscribe(kind, params[0], send)

    return unsubscribe


for _kind in ("account", "program", "signature", "logs", "block", "slot", "root"):
    HANDLERS[f"{_kind}Unsubscribe"] = _unsubscriber(_kind)


def handle_message(hub: Hub, send: Send, text: str) -> None:
    """One websocket message (a request or a batch): answers go out through ``send``, before
    any notification of a subscription they create."""
    try:
        body = json.loads(text)
    except ValueError:
        send(_dumps(error(-32700, "Parse error")))
        return
    if isinstance(body, list):
        answers = [a for a in (_answer(hub, send, r) for r in body) if a is not None]
        if answers:
            send(_dumps(answers))
        return
    if (answer := _answer(hub, send, body)) is not None:
        send(_dumps(answer))


def _answer(hub: Hub, send: Send, req: Any) -> dict[str, Any] | None:
    if not isinstance(req, dict) or req.get("jsonrpc") != "2.0":
        return error(-32600, "Invalid request", req.get("id") if isinstance(req, dict) else None)
    if "id" not in req:
        return None  # a notification (e.g. a client's keep-alive "ping"): no answer
    id_, name, params = req["id"], req.get("method"), req.get("params") or []
    handler = HANDLERS.get(name) if isinstance(name, str) else None
    if handler is None:
        return error(-32601, "Method not found", id_)
    if not isinstance(params, list):
        return error(-32602, "Invalid params: expected an array", id_)
    try:
        return {"jsonrpc": "2.0", "result": handler(hub, send, params), "id": id_}
    except RpcError as exc:
        return error(exc.code, exc.message, id_, exc.data)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        return error(-32602, f"Invalid params: {exc}", id_)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


async def _websocket(request: web.Request) -> web.StreamResponse:
    hub = request.app[HUB]
    ws = web.WebSocketResponse(max_msg_size=4 * 1024 * 1024)
    await ws.prepare(request)
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(text: str) -> None:
        if queue.qsize() >= MAX_QUEUED:  # a client that does not read: cut it off
            hub.drop(send)
            queue.put_nowait(None)
            return
        queue.put_nowait(text)

    async def pump() -> None:
        while (text := await queue.get()) is not None:
            await ws.send_str(text)
        await ws.close(code=1008, message=b"notification queue full")

    writer = asyncio.create_task(pump())
    try:
        async for msg in ws:
            if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                data = msg.data if isinstance(msg.data, str) else msg.data.decode(errors="replace")
                handle_message(hub, send, data)
    finally:
        hub.drop(send)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await writer
    return ws


def make_pubsub_app(chain: Chain) -> web.Application:
    """The websocket app; its hub is ``app[HUB]`` and lets go of the chain on cleanup."""
    app = web.Application()
    app[HUB] = Hub(chain)
    app.router.add_get("/", _websocket)

    async def close(app: web.Application) -> None:
        app[HUB].close()

    app.on_cleanup.append(close)
    return app
