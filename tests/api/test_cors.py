"""``api.cors.Cors`` answers as Starlette's ``CORSMiddleware`` does, with and without an
``Origin``, whatever ``Vary`` the answer already carries."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.middleware.cors import CORSMiddleware
from starlette.types import Message, Receive, Scope, Send

from api.cors import Cors

ANSWERS = [
    [],
    [(b"content-type", b"application/json")],
    [(b"vary", b"Accept")],
    [(b"vary", b"Accept"), (b"x-a", b"1"), (b"vary", b"Cookie"), (b"x-b", b"2")],
]
REQUESTS = [
    [],
    [(b"origin", b"http://allowed.example")],
    [(b"origin", b"http://other.example")],
    [(b"origin", b"http://allowed.example"), (b"access-control-request-method", b"GET")],
]


async def _answer(middleware: type[CORSMiddleware], request: list[Any], answer: list[Any]) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": list(answer)})
        await send({"type": "http.response.body", "body": b"{}"})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    cors = middleware(
        app, allow_origins=["http://allowed.example"], allow_credentials=True,
        allow_methods=["GET", "POST"], allow_headers=["*"], expose_headers=["X-Request-ID"],
    )  # fmt: skip
    method = "OPTIONS" if len(request) == 2 else "GET"
    await cors({"type": "http", "method": method, "headers": request, "path": "/"}, receive, send)
    return sent


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize("request_headers", REQUESTS)
async def test_the_same_answer_as_starlettes(request_headers: list[Any], answer: list[Any]) -> None:
    ours = await _answer(Cors, request_headers, answer)
    theirs = await _answer(CORSMiddleware, request_headers, answer)
    assert ours == theirs
