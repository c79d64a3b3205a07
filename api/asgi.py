"""What the pure ASGI middlewares (request context, body guard, rate limit) share: a header
lookup, the pass-through of scopes that are not HTTP, and an RFC 7807 answer sent straight to
``send`` (they run outside the app's exception handlers, so they answer on their own)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from starlette.types import ASGIApp, Message, Receive, Scope, Send

BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Where the rate limit (``api.ratelimit``, outside the request context) keeps its per-request
# slot: the request context's one ``send`` wrapper asks it for its headers (``AnswerStart``).
RATE_SLOT = "mccgw.ratelimit"


class AnswerStart(Protocol):
    """What a middleware outside the request context adds to an answer's start, from the one
    ``send`` wrapper of ``api.middleware.RequestContextMiddleware`` (a wrapper per middleware
    rebuilt every answer's header list twice: 6-10 % of a read's CPU each)."""

    def pending(self) -> bool:
        """Whether ``start`` must be awaited before ``add`` (a late Redis call)."""
        ...

    async def start(self, message: Message, send: Send) -> bool:
        """The late work; True when it answered in the app's place (the rest is dropped)."""
        ...

    def add(self, headers: list[tuple[bytes, bytes]]) -> None:
        """Append its headers to the answer's, those the answer does not carry already."""
        ...


def header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def problem_body(
    base_url: str, scope: Scope, status: int, slug: str, detail: str
) -> dict[str, Any]:
    return {
        "type": f"{base_url}/errors/{slug}",
        "title": slug.replace("-", " ").capitalize(),
        "status": status,
        "detail": detail,
        "instance": scope.get("path", ""),
    }


async def send_problem(
    send: Send, body: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """An RFC 7807 answer sent from middleware (outside the app's exception handlers)."""
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": body["status"],
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(payload)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class HttpMiddleware:
    """A middleware of HTTP requests: ``http`` sees those, every other scope (lifespan,
    websocket) passes straight through."""

    def __init__(self, app: ASGIApp, base_url: str) -> None:
        self.app = app
        self.base_url = base_url.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError
