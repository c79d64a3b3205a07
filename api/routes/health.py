"""Liveness, readiness and metrics."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text

from api.errors import problem_response
from api.openapi import problems
from api.typed import Shape
from core.metrics import exposition

log = logging.getLogger("mccgw.health")

router = APIRouter(tags=["health"])

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


async def _check_db(request: Request) -> None:
    async with request.app.state.db_engine.connect() as conn:
        await conn.execute(text("SELECT 1"))


async def _check_redis(request: Request) -> None:
    await request.app.state.redis.ping()


async def _check_temporal(request: Request) -> None:
    if not await request.app.state.temporal.service_client.check_health():
        raise RuntimeError("not serving")


async def _check_chain(request: Request) -> None:
    if await request.app.state.rpc.call("getHealth") != "ok":
        raise RuntimeError("getHealth is not ok")


_CHECKS: dict[str, Callable[[Request], Awaitable[None]]] = {
    "database": _check_db,
    "redis": _check_redis,
    "temporal": _check_temporal,
    "chain": _check_chain,
}


async def _run(name: str, request: Request) -> tuple[str, str | None]:
    try:
        await asyncio.wait_for(_CHECKS[name](request), _CHECK_TIMEOUT)
    except Exception as exc:  # any failure means "down"
        # The answer is public: only the kind of failure; its text (hosts, ports) goes to the
        # log for the operator.
        log.warning("readiness check %s failed: %r", name, exc)
        return name, type(exc).__name__
    return name, None


@router.get(
    "/readyz",
    response_model=ReadyBody,
    responses=problems(s503="A dependency is down (`service-unavailable`, with `checks`)"),
)
async def readyz(request: Request) -> Any:
    """Readiness: database, Redis, Temporal and the chain RPC all answer."""
    results = await asyncio.gather(*(_run(name, request) for name in _CHECKS))
    down = {name: reason for name, reason in results if reason is not None}
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
