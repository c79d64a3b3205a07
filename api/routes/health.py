"""Liveness, readiness and metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text

from api.errors import problem_response
from api.openapi import problems
from api.typed import Shape

router = APIRouter(tags=["health"])

_CHECK_TIMEOUT = 3.0


class Alive(Shape):
    status: Literal["ok"]


class Ready(Shape):
    status: Literal["ready"]
    checks: dict[str, Literal["ok"]]


@router.get("/healthz", response_model=Alive, responses=problems(500))
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
    if not await request.app.state.solana.is_connected():  # getHealth == "ok"
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
    except Exception as exc:  # any failure means "down"; the reason is for operators
        return name, f"{type(exc).__name__}: {exc}"[:200] or type(exc).__name__
    return name, None


@router.get(
    "/readyz",
    response_model=Ready,
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
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
