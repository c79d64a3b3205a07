"""Counters for the cost accounting (bench/costs.py), each one that does not swing with the
machine's load: chain RPC calls by method (a counting proxy in front of the node, so every
process's calls are seen), Redis commands (``INFO commandstats``), and a workflow's history
(events, workflow tasks, activity executions).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import ClientSession, web
from redis.asyncio import Redis
from temporalio.api.enums.v1 import EventType

from core.embedded import free_port


class RpcCounter:
    """Counts JSON-RPC calls by method on their way to the node (a batch of n counts n)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def reset(self) -> None:
        self.calls = Counter()

    def read(self) -> dict[str, int]:
        return dict(self.calls)

    def note(self, body: bytes) -> None:
        self.calls.update(rpc_methods(body))

    @asynccontextmanager
    async def proxy(self, upstream: str) -> AsyncIterator[str]:
        """A local HTTP proxy to ``upstream`` that counts what passes; yields its URL."""
        http = ClientSession()

        async def forward(request: web.Request) -> web.Response:
            body = await request.read()
            self.note(body)
            async with http.post(
                upstream, data=body, headers={"Content-Type": "application/json"}
            ) as resp:
                return web.Response(
                    body=await resp.read(), status=resp.status, content_type="application/json"
                )

        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_post("/", forward)
        try:
            async with serve(app) as port:
                yield f"http://127.0.0.1:{port}"
        finally:
            await http.close()


@asynccontextmanager
async def serve(app: web.Application) -> AsyncIterator[int]:
    """``app`` served on loopback (no access log) while the block runs; yields its port."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield port
    finally:
        await runner.cleanup()


def rpc_methods(body: bytes) -> list[str]:
    """The methods of one JSON-RPC request body (a single call or a batch)."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        return []
    calls = doc if isinstance(doc, list) else [doc]
    return [str(c.get("method")) for c in calls if isinstance(c, dict)]


class RedisCounter:
    """Commands the Redis server ran since ``reset`` (``INFO commandstats``; the counter's own
    INFO and CONFIG RESETSTAT are left out), by command."""

    def __init__(self, url: str) -> None:
        self._url = url

    async def reset(self) -> None:
        async with Redis.from_url(self._url) as redis:
            await redis.config_resetstat()

    async def read(self) -> dict[str, int]:
        async with Redis.from_url(self._url) as redis:
            stats = await redis.info("commandstats")
        return redis_commands(stats)


def redis_commands(stats: dict[str, Any]) -> dict[str, int]:
    """``{cmdstat_get: {calls: 3, ...}}`` -> ``{get: 3}``, the counter's own commands out."""
    out: dict[str, int] = {}
    for key, value in stats.items():
        name = key.removeprefix("cmdstat_")
        if name in ("info", "config|resetstat", "config", "hello", "client|setinfo"):
            continue
        calls = value.get("calls", 0) if isinstance(value, dict) else 0
        if calls:
            out[name] = int(calls)
    return out


@dataclass(frozen=True)
class HistoryCounts:
    events: int
    workflow_tasks: int  # completed workflow tasks (each one a round trip worker <-> server)
    activities: int  # activity executions, local ones included (their markers)


def history_counts(event_types: Iterable[int]) -> HistoryCounts:
    events = tasks = activities = 0
    for kind in event_types:
        events += 1
        if kind == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            tasks += 1
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            activities += 1
        elif kind == EventType.EVENT_TYPE_MARKER_RECORDED:
            activities += 1  # a local activity's result (the only markers our workflows write)
    return HistoryCounts(events, tasks, activities)


async def histories(client: Any, workflow_ids: Iterable[str]) -> HistoryCounts:
    """The summed counts of these workflows' histories (each as it stands now)."""

    async def one(wid: str) -> HistoryCounts:
        history = await client.get_workflow_handle(wid).fetch_history()
        return history_counts(e.event_type for e in history.events)

    found = await asyncio.gather(*(one(w) for w in workflow_ids))
    return HistoryCounts(
        sum(h.events for h in found),
        sum(h.workflow_tasks for h in found),
        sum(h.activities for h in found),
    )
