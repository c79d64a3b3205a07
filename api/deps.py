"""Shared request dependencies as Annotated aliases."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession

from chain.decimals import TokenDecimals
from chain.errors import ChainError
from chain.gateway import ChainGateway
from core.config import Settings
from core.errors import ServiceUnavailable


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


def token_decimals(request: Request, currency: str) -> int:
    """Decimals of ``currency``'s mint, as read from the chain at start-up; 503 while the chain
    has not answered since."""
    return mint_decimals(request).of(currency)


def mint_decimals(request: Request) -> TokenDecimals:
    """Each mint's own decimals (chain/decimals.py), as read from the chain at start-up; 503
    while the chain has not answered since."""
    gateway: ChainGateway = request.app.state.gateway
    try:
        return gateway.token_decimals()
    except ChainError as exc:
        raise ServiceUnavailable(
            f"Token decimals unavailable: {exc}", headers={"Retry-After": "5"}
        ) from exc
