"""Start the access services with the app: the authorization server, token verification,
project authentication and the rate limiter."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import sqlalchemy
from fastapi import FastAPI

from access.login import LoginThrottle
from access.ratelimit import RateLimiter
from api.auth.project import ProjectAuthenticator
from api.auth.tokens import Introspector, JwksCache, TokenVerifier
from api.ratelimit import in_process
from authserver.server import AuthServer, gateway_credentials, register_console_client
from core.config import Settings


def auth_in_process(settings: Settings) -> bool:
    return settings.auth_url.rstrip("/") == settings.base_url.rstrip("/") + "/auth"


def auth_transport(app: FastAPI, settings: Settings) -> httpx.ASGITransport | None:
    """How this process speaks to its authorization server: in-process, an ASGI call onto this
    same app that no rate budget counts (``api.ratelimit.in_process``); None: over the network."""
    return httpx.ASGITransport(app=in_process(app)) if auth_in_process(settings) else None


@asynccontextmanager
async def access_services(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    if settings.is_dev and settings.auth_url.startswith("http://"):
        os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")  # plain HTTP on a laptop only
    # authlib is synchronous: the AS runs in worker threads on its own small sync pool.
    sync_engine = sqlalchemy.create_engine(
        settings.database_url, pool_size=4, max_overflow=4, pool_pre_ping=True
    )
    app.state.auth_server = AuthServer(settings, sync_engine)
    if auth_in_process(settings):  # the operator console signs in with its first-party client
        register_console_client(app.state.auth_server.store, settings)
    app.state.rate_limiter = RateLimiter(app.state.redis)
    app.state.login_throttle = LoginThrottle(app.state.redis)
    app.state.project_authenticator = ProjectAuthenticator(
        settings, app.state.session_maker, app.state.redis, app.state.notify
    )
    await app.state.project_authenticator.start()
    # The verifier always speaks HTTP to the AS; in-process that is an ASGI call onto this app.
    http = httpx.AsyncClient(transport=auth_transport(app, settings), timeout=5.0)
    issuer = settings.auth_url.rstrip("/")
    credentials = gateway_credentials(settings)
    app.state.token_verifier = TokenVerifier(
        JwksCache(http, f"{issuer}/.well-known/jwks.json"),
        Introspector(
            http,
            f"{issuer}/oauth/introspect",
            credentials.client_id,
            credentials.client_secret,
            app.state.redis,
        ),
        issuer=issuer,
        audience=settings.base_url.rstrip("/"),
        redis=app.state.redis,
    )
    try:
        yield
    finally:
        await app.state.project_authenticator.stop()
        await http.aclose()
        app.state.auth_server.close()
        sync_engine.dispose()
