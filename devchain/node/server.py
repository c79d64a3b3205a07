"""HTTP transport: JSON-RPC 2.0 (single and batch) over aiohttp, and the slot clock task.
Every failure becomes a JSON-RPC error object with HTTP 200, never a 500."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from aiohttp import web

from devchain.node.rpc import Rpc
from devchain.node.svm import Chain, RpcError

log = logging.getLogger("devchain.node")

MAX_BODY = 50 * 1024 * 1024
MAX_CATCH_UP = 10  # after a stall, close at most this many slots at once, then resync


def _error(code: int, message: str, id_: Any = None, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "error": err, "id": id_}


def handle_one(rpc: Rpc, req: Any) -> dict[str, Any]:
    if not isinstance(req, dict):
        return _error(-32600, "Invalid request")
    id_ = req.get("id")
    if isinstance(id_, (dict, list, bool)):
        return _error(-32600, "Invalid request")
    name = req.get("method")
    params = req.get("params", [])
    if req.get("jsonrpc") != "2.0" or not isinstance(name, str):
        return _error(-32600, "Invalid request", id_)
    if params is None:
        params = []
    if not isinstance(params, list):
        return _error(-32602, "Invalid params: expected an array", id_)
    try:
        result = rpc.call(name, params)
    except RpcError as exc:
        return _error(exc.code, exc.message, id_, exc.data)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        return _error(-32602, f"Invalid params: {exc}", id_)
    except Exception as exc:  # a bug must not take the node down or return HTTP 500
        log.warning("internal error in %s: %r", name, exc, exc_info=True)
        return _error(-32603, f"Internal error: {exc}", id_)
    return {"jsonrpc": "2.0", "result": result, "id": id_}


def handle_body(rpc: Rpc, body: bytes) -> Any:
    try:
        req = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return _error(-32700, "Parse error")
    if isinstance(req, list):
        if not req:
            return _error(-32600, "Invalid request")
        return [handle_one(rpc, r) for r in req]
    return handle_one(rpc, req)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


async def clock(chain: Chain, slot_ms: int) -> None:
    """Advance one slot every `slot_ms`, on a fixed schedule so slots do not drift."""
    period = slot_ms / 1000
    deadline = time.monotonic() + period
    while True:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        try:
            chain.tick()
        except Exception:
            log.warning("slot tick failed", exc_info=True)
        deadline += period
        now = time.monotonic()
        if now - deadline > MAX_CATCH_UP * period:
            deadline = now + period


def make_app(chain: Chain, slot_ms: int) -> web.Application:
    rpc = Rpc(chain)

    async def post(request: web.Request) -> web.Response:
        body = await request.read()
        return web.json_response(handle_body(rpc, body), dumps=_dumps)

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def run_clock(app: web.Application) -> Any:
        task = asyncio.create_task(clock(chain, slot_ms))
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        chain.close()  # flush the last slot before the process goes

    app = web.Application(client_max_size=MAX_BODY)
    app.router.add_post("/", post)
    app.router.add_get("/health", health)
    app.cleanup_ctx.append(run_clock)
    return app
