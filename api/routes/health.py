"""Liveness, readiness and metrics."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text

from api.callers import PUBLIC
from api.errors import problem_response
from api.openapi import problems
from api.typed import Shape
from core.metrics import exposition

log = logging.getLogger("mccgw.health")

router = APIRouter(tags=["health"], dependencies=[Depends(PUBLIC)])

_CHECK_TIMEOUT = 3.0


class AliveBody(Shape):
    status: Literal["ok"]


class ReadyBody(Shape):
    status: Literal["ready"]
    checks: dict[str, Literal["ok"]]


@router.get("/healthz", response_model=AliveBody, responses=problems(500))
async def healthz() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}


async def _check_db(state: Any) -> None:
    async with state.db_engine.connect() as conn:
        await conn.execute(text("SELECT 1"))


async def _check_redis(state: Any) -> None:
    await state.redis.ping()


async def _check_temporal(state: Any) -> None:
    if not await state.temporal.service_client.check_health():
        raise RuntimeError("not serving")


async def _check_chain(state: Any) -> None:
    if await state.rpc.call("getHealth") != "ok":
        raise RuntimeError("getHealth is not ok")


_CHECKS: dict[str, Callable[[Any], Awaitable[None]]] = {
    "database": _check_db,
    "redis": _check_redis,
    "temporal": _check_temporal,
    "chain": _check_chain,
}
# /readyz is public and unlimited (orchestrators probe it often), and each probe reaches the
# database, Redis, Temporal and the chain RPC, a metered provider: one probe per process at a
# time, and its answer is served to every caller for this long after it ends (issue 38).
READY_CACHE_SECONDS = 2.0


async def _run(name: str, state: Any) -> tuple[str, str | None]:
    try:
        await asyncio.wait_for(_CHECKS[name](state), _CHECK_TIMEOUT)
    except Exception as exc:  # any failure means "down"
        # The answer is public: only the kind of failure; its text (hosts, ports) goes to the
        # log for the operator.
        log.warning("readiness check %s failed: %r", name, exc)
        return name, type(exc).__name__
    return name, None


async def _probe(state: Any) -> tuple[dict[str, str], float]:
    """(what is down, and why), and until when that answer is served."""
    results = await asyncio.gather(*(_run(name, state) for name in _CHECKS))
    down = {name: reason for name, reason in results if reason is not None}
    return down, time.monotonic() + READY_CACHE_SECONDS


def _usable(probe: asyncio.Task[tuple[dict[str, str], float]] | None) -> bool:
    """A probe under way (join it), or one that ended less than READY_CACHE_SECONDS ago."""
    if probe is None:
        return False
    if not probe.done():
        return True
    return not probe.cancelled() and probe.result()[1] > time.monotonic()


async def readiness(state: Any) -> dict[str, str]:
    """The dependencies that are down (``_probe`` never raises): the last probe's answer while
    fresh, else the probe under way (every caller waits for the same one), else a new one."""
    probe: asyncio.Task[tuple[dict[str, str], float]] | None = getattr(state, "ready_probe", None)
    if not _usable(probe):
        probe = asyncio.create_task(_probe(state))
        state.ready_probe = probe
    assert probe is not None
    down, _ = await asyncio.shield(probe)
    return down


@router.get(
    "/readyz",
    response_model=ReadyBody,
    responses=problems(s503="A dependency is down (`service-unavailable`, with `checks`)"),
)
async def readyz(request: Request) -> Any:
    """Readiness: database, Redis, Temporal and the chain RPC all answer (probed at most once
    per process at a time, the answer served for 2 s)."""
    down = await readiness(request.app.state)
    if down:
        return problem_response(
            request, 503, "service-unavailable",
            f"Not ready: {', '.join(sorted(down))} down",
            headers={"Retry-After": "5"},
            checks={name: ("down" if name in down else "ok") for name in _CHECKS},
            reasons=down,
        )  # fmt: skip
    return {"status": "ready", "checks": dict.fromkeys(_CHECKS, "ok")}


@router.get("/metrics", include_in_schema=False)
async def metrics() -> Response:
    """Prometheus metrics."""
    return Response(exposition(), media_type=CONTENT_TYPE_LATEST)
