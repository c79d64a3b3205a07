"""What the token routes share: their app-state clients, problem documents (the fast answer of
the latency-sensitive reads, issue 15, is ``api.envelope.fast``)."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from api.openapi import CHAIN_UNREACHABLE, problems
from chain.gateway import ChainGateway
from core.config import Settings
from core.errors import DomainError, ServiceUnavailable
from db.notify import NotifyCache

USER_PROBLEMS = problems(
    401,
    403,
    429,
    s422="`validation-error` (page, per_page)",
    s503="Token decimals not yet read from the chain (`service-unavailable`)",
)
PUBLIC_PROBLEMS = problems(429, s503=CHAIN_UNREACHABLE)
STATS_SECONDS = 30.0  # the public token statistics are kept this long per process


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def cache_of(request: Request) -> NotifyCache[Any]:
    cache: NotifyCache[Any] = request.app.state.token_cache
    return cache


def gateway_of(request: Request) -> ChainGateway:
    gateway: ChainGateway = request.app.state.gateway
    return gateway


def chain_down(exc: Exception) -> DomainError:
    return ServiceUnavailable("The chain RPC is unreachable", headers={"Retry-After": "5"})
