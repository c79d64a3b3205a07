"""Shared request dependencies as Annotated aliases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.client import Client

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
async def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _redis(request: Request) -> Redis:
    redis: Redis = request.app.state.redis
    return redis


async def _temporal(request: Request) -> Client:
    client: Client = request.app.state.temporal
    return client


async def _gateway(request: Request) -> ChainGateway:
    gateway: ChainGateway = request.app.state.gateway
    return gateway


SessionDep = Annotated[AsyncSession, Depends(_session)]
SettingsDep = Annotated[Settings, Depends(_settings)]
RedisDep = Annotated[Redis, Depends(_redis)]
TemporalDep = Annotated[Client, Depends(_temporal)]
GatewayDep = Annotated[ChainGateway, Depends(_gateway)]


def token_decimals(request: Request, currency: str | None = None) -> int:
    """Decimals of ``currency``'s mint (or the one value MCC and MCD share), as read from the
    chain at start-up; 503 while the chain has not answered since."""
    gateway: ChainGateway = request.app.state.gateway
    try:
        return gateway.decimals(currency)
    except ChainError as exc:
        raise ServiceUnavailable(
            f"Token decimals unavailable: {exc}", headers={"Retry-After": "5"}
        ) from exc
