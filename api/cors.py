"""CORS as Starlette's ``CORSMiddleware`` answers it, with a shorter way for the requests that
send no ``Origin`` (every client but a browser): Starlette parses the request's headers, wraps
``send`` in a ``functools.partial`` and edits the answer's through ``MutableHeaders`` only to
add ``Vary: Origin``; here that is one pass over the answer's header list. A request with an
``Origin`` (and every preflight) goes to Starlette's middleware unchanged."""

from __future__ import annotations

from starlette.middleware.cors import CORSMiddleware
from starlette.types import Message, Receive, Scope, Send


def vary_origin(message: Message) -> None:
    """``Vary: Origin`` added as Starlette's ``headers["Vary"] = ", ".join([*vary, "Origin"])``
    does: the values of every ``vary`` header joined, with ``Origin``, into the first one."""
    headers = list(message.get("headers", ()))
    found = [i for i, (key, _) in enumerate(headers) if key == b"vary"]
    if not found:
        headers.append((b"vary", b"Origin"))
    else:
        values = [headers[i][1].decode("latin-1") for i in found]
        for i in reversed(found[1:]):
            del headers[i]
        headers[found[0]] = (b"vary", ", ".join([*values, "Origin"]).encode("latin-1"))
    message["headers"] = headers


class Cors(CORSMiddleware):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or any(k == b"origin" for k, _ in scope["headers"]):
            await super().__call__(scope, receive, send)
            return

        async def with_vary(message: Message) -> None:
            if message["type"] == "http.response.start":
                vary_origin(message)
            await send(message)

        await self.app(scope, receive, with_vary)
