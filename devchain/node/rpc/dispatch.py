"""JSON-RPC 2.0 dispatch: the envelope (single and batch requests, error objects), the method
table every family module registers into, and ``Rpc``, which answers one call through its
middlewares. No transport here (``devchain/node/server.py``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from devchain.node.svm import Chain, Commitment, RpcError

log = logging.getLogger("devchain.node")

API_VERSION = "2.2.0"

# JSON-RPC 2.0's own error codes; Solana's server errors (-320xx) are raised where they arise.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

Params = list[Any]
Handler = Callable[["Rpc", Params], Any]
# One step of answering a call: (rpc, method name, params) -> result, or raise RpcError.
Call = Callable[["Rpc", str, Params], Any]
# Wraps every call: look at it, answer instead (return, or raise RpcError), or pass it on with
# call_next, the same rpc or another (``Rpc(view)``: the methods over another chain).
Middleware = Callable[["Rpc", str, Params, Call], Any]

METHODS: dict[str, Handler] = {}
H = TypeVar("H")


def registrar(table: dict[str, H]) -> Callable[[str], Callable[[H], H]]:
    """A decorator that files a handler in ``table`` under a method's name (this server's
    ``method``, the PubSub server's handlers)."""

    def named(name: str) -> Callable[[H], H]:
        def register(fn: H) -> H:
            table[name] = fn
            return fn

        return register

    return named


method = registrar(METHODS)


def invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, message)


def dispatch(rpc: Rpc, name: str, params: Params) -> Any:
    """The innermost step: the registered method, or "Method not found"."""
    handler = METHODS.get(name)
    if handler is None:
        raise RpcError(METHOD_NOT_FOUND, "Method not found")
    return handler(rpc, params)


def _wrap(middleware: Middleware, call_next: Call) -> Call:
    return lambda rpc, name, params: middleware(rpc, name, params, call_next)


class Rpc:
    """The methods over one chain. ``middlewares`` wrap every call, the first outermost."""

    def __init__(self, chain: Chain, middlewares: Sequence[Middleware] = ()) -> None:
        self.chain = chain
        call: Call = dispatch
        for middleware in reversed(middlewares):
            call = _wrap(middleware, call)
        self._call = call

    def call(self, name: str, params: Params) -> Any:
        return self._call(self, name, params)

    def ctx(self, c: Commitment, value: Any) -> dict[str, Any]:
        slot = self.chain.commitment_slot(c)
        return {"context": {"slot": slot, "apiVersion": API_VERSION}, "value": value}


# -- the envelope ----------------------------------------------------------------------------


def error(code: int, message: str, id_: Any = None, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "error": err, "id": id_}


def handle_one(rpc: Rpc, req: Any) -> dict[str, Any]:
    """One request object to one response object; every failure becomes an error object."""
    if not isinstance(req, dict):
        return error(INVALID_REQUEST, "Invalid request")
    id_ = req.get("id")
    if isinstance(id_, (dict, list, bool)):
        return error(INVALID_REQUEST, "Invalid request")
    name = req.get("method")
    params = req.get("params", [])
    if req.get("jsonrpc") != "2.0" or not isinstance(name, str):
        return error(INVALID_REQUEST, "Invalid request", id_)
    if params is None:
        params = []
    if not isinstance(params, list):
        return error(INVALID_PARAMS, "Invalid params: expected an array", id_)
    try:
        result = rpc.call(name, params)
    except RpcError as exc:
        return error(exc.code, exc.message, id_, exc.data)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        return error(INVALID_PARAMS, f"Invalid params: {exc}", id_)
    except Exception as exc:  # a bug must not take the node down or return HTTP 500
        log.warning("internal error in %s: %r", name, exc, exc_info=True)
        return error(INTERNAL_ERROR, f"Internal error: {exc}", id_)
    return {"jsonrpc": "2.0", "result": result, "id": id_}


def handle_body(rpc: Rpc, body: bytes) -> Any:
    """A request body (one request or a batch) to what the server answers."""
    try:
        req = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return error(PARSE_ERROR, "Parse error")
    if isinstance(req, list):
        if not req:
            return error(INVALID_REQUEST, "Invalid request")
        return [handle_one(rpc, r) for r in req]
    return handle_one(rpc, req)
