"""The FastAPI application factory."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.routing import BaseRoute
from temporalio.client import Client

from access import consent
from api.after_commit import AfterCommit
from api.auth.declaration import install_declarations
from api.auth.wiring import access_services
from api.callers import install_legacy
from api.console import install_console
from api.cors import Cors
from api.errors import install_error_handlers
from api.guard import BodyGuardMiddleware
from api.idempotency_store import install_idempotency
from api.middleware import RequestContextMiddleware
from api.openapi import install_problem_schemas
from api.ratelimit import RateLimitMiddleware, limit_unauthenticated
from api.routes import api_router
from api.routes.tokens import token_services
from api.routing import install_route_index
from api.versions import DOCUMENT_VERSION
from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings, get_settings
from core.logging import configure_logging
from core.redis_client import create_redis
from db.notify import NotifyListener
from db.session import create_db_engine, create_session_maker, renew_after_loss
from engine import limits
from profiles.storage import storage_from_settings
from views.base import ProgramIds, Views

DESCRIPTION = """
The single public HTTPS JSON entry point of the MCC/MCD ecosystem.

* Success bodies use a JSON:API-style envelope (`data`, `meta.request_id`, `meta.api_version`).
* Errors are RFC 7807 `application/problem+json` bodies; `type` ends in a stable slug.
* Every response carries `X-Request-ID` (an incoming sane value is echoed).
* Amounts travel as decimal strings and are computed in integer base units.
* User calls: `Authorization: Bearer <JWT>` from the authorization server at `/auth`
  (authorization code + PKCE). Project calls: `X-Project-ID` with `X-API-Key`, or the HMAC
  form `X-Timestamp` + `X-Signature` (see docs/access.md for the message and test vectors).
* Every response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`.
* Every write takes `idempotency_key` (or `Idempotency-Key`); a retry replays the stored
  response with `Idempotent-Replayed: true`.
* Versions: `info.version` follows Semantic Versioning 2.0.0; a breaking change comes only
  with a new major version, and a version is served for 12 months after the next one is
  released (`GET /versions`). A deprecated operation is marked `deprecated: true` here, with
  its `x-sunset` date, and answers with `Deprecation` and `Sunset` headers.
"""


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    # Clients are created once per process and shared by every request.
    engine = create_db_engine(settings)
    app.state.db_engine = engine
    app.state.session_maker = create_session_maker(engine)
    app.state.redis = create_redis(settings)
    # lazy: the API starts (and /readyz reports it) even while Temporal is still coming up.
    app.state.temporal = await Client.connect(
        settings.temporal_address, namespace=settings.temporal_namespace, lazy=True
    )
    # The one JSON-RPC transport of the process: the gateway, the chain views and the readiness
    # check all speak to the chain through it (chain/rpc.py); it retries for 2 s at most, so a
    # request meets an outage as a 503 in seconds (a worker's activity waits longer).
    app.state.rpc = ChainRpc.of(settings, retry_within=min(2.0, settings.solana_rpc_retry_seconds))
    # Reads (balances, history) go through the same gateway the worker writes with.
    app.state.gateway = ChainGateway(
        settings,
        app.state.rpc,
        load_or_create_keys(settings.chain_keys_dir),
        app.state.session_maker,
    )
    app.state.after_commit = AfterCommit()
    app.state.views = create_views(settings, app.state.rpc)
    # Token decimals come from the mints (never assumed); read in the background so the API
    # starts while its chain is down (amount-bearing routes answer 503 until then).
    warm_up = asyncio.create_task(app.state.gateway.warm_up())
    # One LISTEN connection per process (db.notify): every NOTIFY-fed cache subscribes to it
    # (attach): balances and the price (token_services), project rows (access_services),
    # amount limits and consent grants.
    app.state.notify = NotifyListener(settings.database_url_plain)
    renew_after_loss(engine, app.state.notify)  # requests after a restart: a fresh pool
    for module_cache in (limits.OVERRIDES, consent.GRANTS):
        app.state.notify.attach(module_cache)
    try:
        async with access_services(app), token_services(app):
            await app.state.notify.start(ready_timeout=5.0)
            # Everything loaded so far lives as long as the process: move it out of the
            # collector's sight, so full collections stay short and do not stall requests.
            gc.freeze()
            yield
            await app.state.after_commit.drain()
    finally:
        await app.state.notify.stop()
        for module_cache in (limits.OVERRIDES, consent.GRANTS):
            app.state.notify.detach(module_cache)
        warm_up.cancel()
        await app.state.rpc.aclose()
        await app.state.redis.aclose()
        await engine.dispose()


def create_views(settings: Settings, rpc: ChainRpc) -> Views:
    """The chain views' per-program snapshot caches over the process's transport
    (docs/views.md)."""
    ids = ProgramIds(
        territory=settings.territory_nft_program_id,
        auction=settings.auction_program_id,
        fragment=settings.fragment_program_id,
        lending=settings.lending_program_id,
        level_verifier=settings.level_verifier_program_id,
    )
    return Views(rpc, ids, settings.views_refresh_seconds, settings.lending_pool_address)


def _summaries_from_docstrings(routes: Sequence[BaseRoute]) -> None:
    """A route's one-line docstring is its OpenAPI summary (FastAPI would title-case the
    function name); the rest of the docstring stays the description."""
    for route in routes:
        included = getattr(route, "original_router", None)  # an included router, nested
        if included is not None:
            _summaries_from_docstrings(included.routes)
        elif isinstance(route, APIRoute) and route.summary is None and route.description:
            first, _, rest = route.description.strip().partition("\n\n")
            route.summary = " ".join(first.split())
            route.description = rest.strip()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(settings.log_level, settings.log_json)
    app = FastAPI(
        title="mccgw — MCC/MCD open API",
        version=DOCUMENT_VERSION,  # SemVer; docs/versioning.md
        description=DESCRIPTION,
        lifespan=lifespan,
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url="/redoc",
        # No header lets a request out of the rate limit (api.ratelimit).
        dependencies=[Depends(limit_unauthenticated)],
    )
    app.state.settings = settings
    # Where workflows are started (api.starts); tests point it at a queue of their own.
    app.state.task_queue = settings.task_queue
    # Fails here, with a clear message, when the configured avatar storage cannot be used.
    app.state.avatar_storage = storage_from_settings(settings)
    if settings.avatar_storage == "local":
        settings.avatar_dir.mkdir(parents=True, exist_ok=True)
        app.mount("/media/avatars", StaticFiles(directory=settings.avatar_dir), name="avatars")
    install_error_handlers(app)
    install_idempotency(app)
    install_legacy(app)
    app.include_router(api_router)
    install_console(app)  # the operator console (HTML) at /console
    _summaries_from_docstrings(app.routes)
    install_problem_schemas(app)  # errors documented as the problem bodies they are
    install_declarations(app)  # each operation's callers as x-callers (api.auth.declaration)
    install_route_index(app)  # one pass over a flat route list (api.routing says why)
    app.add_middleware(
        Cors,  # Starlette's CORSMiddleware, shorter for a request with no Origin
        allow_origins=settings.cors_origins,
        allow_credentials=True,
        allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        allow_headers=["*"],
        expose_headers=[
            "X-Request-ID",
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
            "Retry-After",
            "Idempotent-Replayed",
        ],
    )
    # Size caps and strict JSON before any route or auth reads a body (api.guard).
    app.add_middleware(BodyGuardMiddleware, base_url=settings.base_url)
    # Outermost, so every response (CORS preflight and crashes included) gets X-Request-ID.
    app.add_middleware(RequestContextMiddleware, base_url=settings.base_url)
    # Outside the request context, so even its 415/500 responses carry the rate headers.
    app.add_middleware(RateLimitMiddleware, base_url=settings.base_url)
    return app
