"""HTTP transport: JSON-RPC 2.0 (single and batch) over aiohttp, and the slot clock task.
Every failure becomes a JSON-RPC error object with HTTP 200, never a 500 (the envelope and the
methods: ``devchain/node/rpc/``).

``make_app`` takes two kinds of middleware: ``middlewares``, aiohttp's own, around every HTTP
request (async: may wait, or answer in place of the node, e.g. a 429 with Retry-After), and
``rpc_middlewares``, around every JSON-RPC call (``devchain.node.rpc.Middleware``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Sequence
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Middleware as HttpMiddleware

from devchain.node.rpc import Middleware, Rpc, handle_body
from devchain.node.svm import Chain

log = logging.getLogger("devchain.node")

MAX_BODY = 50 * 1024 * 1024
MAX_CATCH_UP = 10  # after a stall, close at most this many slots at once, then resync


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


def make_app(
    chain: Chain,
    slot_ms: int,
    *,
    middlewares: Sequence[HttpMiddleware] = (),
    rpc_middlewares: Sequence[Middleware] = (),
) -> web.Application:
    rpc = Rpc(chain, rpc_middlewares)

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

    app = web.Application(client_max_size=MAX_BODY, middlewares=middlewares)
    app.router.add_post("/", post)
    app.router.add_get("/health", health)
    app.cleanup_ctx.append(run_clock)
    return app
