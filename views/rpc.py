"""A lean JSON-RPC reader for the views: raw JSON (no typed client parsing thousands of
accounts), a count of calls per method (the benchmark and tests read it), and one error type
for "the chain did not answer"."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any

import httpx
import orjson

from views.errors import ChainUnavailable


class RpcFailed(Exception):
    """The node answered with a JSON-RPC error (bad parameters, unknown account kind...)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


class ChainReader:
    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.url = url
        self._http = httpx.AsyncClient(timeout=timeout)
        self._ids = itertools.count(1)
        self.calls: Counter[str] = Counter()

    async def close(self) -> None:
        await self._http.aclose()

    async def call(self, method: str, *params: Any) -> Any:
        return self.result(await self.call_raw(method, *params))

    async def call_raw(self, method: str, *params: Any) -> bytes:
        """The undecoded response body (large answers are parsed off the event loop)."""
        self.calls[method] += 1
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        try:
            resp = await self._http.post(self.url, content=json.dumps(body))
            resp.raise_for_status()
        except httpx.HTTPError as exc:
            raise ChainUnavailable(type(exc).__name__) from exc
        return resp.content

    @staticmethod
    def result(raw: bytes) -> Any:
        try:
            doc = orjson.loads(raw)  # several times faster than json on large account sets
        except orjson.JSONDecodeError as exc:
            raise ChainUnavailable("the node answered with something that is not JSON") from exc
        if "error" in doc:
            err = doc["error"]
            code = int(err.get("code", 0))
            if code in (-32603, -32005, -32004):  # internal / node unhealthy / slot skipped
                raise ChainUnavailable(str(err.get("message")))
            raise RpcFailed(code, str(err.get("message")))
        return doc["result"]
