"""Shared request dependencies as Annotated aliases."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession

from chain.decimals import TokenDecimals
from chain.gateway import ChainGateway
from core.config import Settings


async def _session(request: Request) -> AsyncIterator[AsyncSession]:
    # The route owns its single commit point; anything not committed is rolled back here.
    async with request.app.state.session_maker() as session:
        yield session


# The getters are coroutines on purpose: FastAPI runs a plain-def dependency in a worker
# thread, and the hop cost more than a whole cached route (docs/performance.md).
def _state(name: str) -> Callable[[Request], Awaitable[Any]]:
    """A dependency handing over one of the shared objects the lifespan put on app.state."""

    async def shared(request: Request) -> Any:
        return getattr(request.app.state, name)

    return shared


SessionDep = Annotated[AsyncSession, Depends(_session)]
SettingsDep = Annotated[Settings, Depends(_state("settings"))]
RedisDep = Annotated[Redis, Depends(_state("redis"))]
GatewayDep = Annotated[ChainGateway, Depends(_state("gateway"))]


async def _decimals(request: Request) -> TokenDecimals:
    gateway: ChainGateway = request.app.state.gateway
    return gateway.token_decimals()


# Each mint's own decimals (chain/decimals.py), the process's one TokenDecimals, read from the
# mints at start-up; until then the chain's ChainUnavailable, which api/errors.py answers 503.
DecimalsDep = Annotated[TokenDecimals, Depends(_decimals)]
