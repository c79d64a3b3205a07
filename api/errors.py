"""One error path: every failure leaves as an RFC 7807 ``application/problem+json`` body.

Raise a ``core.errors.DomainError`` (or a subclass) anywhere below a route; framework errors
(unknown route, wrong method, malformed JSON, validation) and unhandled exceptions are mapped
here too.
No stack trace or internal detail ever reaches a client.
"""

from __future__ import annotations

import logging
import math
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from chain.errors import ChainRateLimited, ChainUnavailable
from core.errors import DomainError, title_of

log = logging.getLogger("mccgw.api")

PROBLEM_CONTENT_TYPE = "application/problem+json"


_title = title_of


def invalid_field(
    field: str, message: str, detail: str | None = None, slug: str = "validation-error"
) -> DomainError:
    """A 422 about one field of the request, named in the problem's ``errors``; the detail is
    ``"field: message"`` unless given."""
    return DomainError(
        f"{field}: {message}" if detail is None else detail,
        status=422,
        slug=slug,
        errors=[{"field": field, "message": message}],
    )


def problem_response(
    request: Request,
    status: int,
    slug: str,
    detail: str,
    title: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    base_url = request.app.state.settings.base_url.rstrip("/")
    body: dict[str, Any] = {
        "type": f"{base_url}/errors/{slug}",
        "title": title or _title(slug),
        "status": status,
        "detail": detail,
        "instance": request.url.path,
    }
    body.update(extra)
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_CONTENT_TYPE)


_HTTP_SLUGS = {
    400: "malformed-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    413: "payload-too-large",
    415: "unsupported-media-type",
    429: "rate-limit-exceeded",
}


def answered_status(exc: BaseException) -> tuple[int, str]:
    """The status and problem slug the handlers installed below answer ``exc`` with: the audit
    row of a failed write records what its client was told (a lost database or Redis is a 503,
    not a 500)."""
    if isinstance(exc, DomainError):
        return exc.status, exc.slug
    if isinstance(exc, StarletteHTTPException):
        status = exc.status_code
        return status, _HTTP_SLUGS.get(status, HTTPStatus(status).phrase.lower().replace(" ", "-"))
    if isinstance(exc, RequestValidationError):
        if any(e.get("type") == "json_invalid" for e in exc.errors()):
            return 400, "malformed-request"
        return 422, "validation-error"
    if (isinstance(exc, DBAPIError) and exc.connection_invalidated) or isinstance(
        exc, SQLAlchemyTimeout | RedisError | OperationalError | ChainUnavailable
    ):
        return 503, "service-unavailable"
    return 500, "internal-error"


def _field_path(loc: tuple[Any, ...] | list[Any]) -> str:
    # ("body", "amount") -> "amount"; ("query", "page") -> "page"
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


async def _on_domain(request: Request, exc: Exception) -> JSONResponse:
    """Every business refusal (engine, organizations, views, ledger, ...) is a DomainError."""
    assert isinstance(exc, DomainError)
    return problem_response(
        request, exc.status, exc.slug, exc.detail, exc.title, exc.headers, **exc.extra
    )


async def _on_http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    status, slug = answered_status(exc)
    if status == 404 and exc.detail == "Not Found":
        detail = f"No route matches {request.method} {request.url.path}"
    elif status == 405:
        detail = f"{request.method} is not allowed on {request.url.path}"
    else:
        detail = str(exc.detail)
    return problem_response(request, status, slug, detail, headers=dict(exc.headers or {}))


async def _on_validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    if answered_status(exc)[0] == 400:
        return problem_response(
            request, 400, "malformed-request", "The request body is not valid JSON"
        )
    fields = [{"field": _field_path(e.get("loc", ())), "message": e.get("msg", "")} for e in errors]
    summary = "; ".join(f"{f['field']}: {f['message']}" for f in fields[:5])
    return problem_response(
        request, 422, "validation-error", f"Invalid request: {summary}", errors=fields
    )


async def _on_database(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DBAPIError)
    if exc.connection_invalidated:
        # Pooled connections are not pinged before use (a round trip per request saved): after
        # a database restart one request per process meets a dead connection; the pool is then
        # renewed, so an immediate retry (same idempotency key) succeeds.
        log.warning("database connection lost: %s", exc.orig)
        return problem_response(
            request,
            503,
            "service-unavailable",
            "The database connection was lost. Retry the request with the same idempotency "
            "key: a write is applied at most once.",
            headers={"Retry-After": "1"},
        )
    if isinstance(exc, OperationalError):
        # The server is restarting or unreachable (a new connection refused, "the database
        # system is starting up"): nothing was written, a retry will do (chaos suite).
        log.warning("database unavailable: %s", exc.orig)
        return unavailable_response(request, "The database")
    return await _on_unhandled(request, exc)


def unavailable_response(request: Request, what: str) -> JSONResponse:
    return problem_response(
        request,
        503,
        "service-unavailable",
        f"{what} is unavailable or saturated; nothing was written. Retry the request.",
        headers={"Retry-After": "1"},
    )


async def _on_redis(request: Request, exc: Exception) -> JSONResponse:
    # Redis unreachable, or every pooled connection busy past the pool's time-out.
    log.warning("redis unavailable: %r", exc)
    return unavailable_response(request, "A backing service (Redis)")


async def _on_pool_timeout(request: Request, exc: Exception) -> JSONResponse:
    log.warning("database pool exhausted: %s", exc)
    return unavailable_response(request, "The database")


async def _on_chain_unavailable(request: Request, exc: Exception) -> JSONResponse:
    """The chain did not answer (chain/rpc.py's error map): the one 503 of every route that
    reads it, the chain views' included. Its text (hosts, ports) goes to the log only."""
    assert isinstance(exc, ChainUnavailable)
    log.warning("chain unavailable: %s", exc)
    wait = exc.retry_after if isinstance(exc, ChainRateLimited) else None
    return problem_response(
        request,
        503,
        "service-unavailable",
        "The chain RPC is unavailable. Retry the request.",
        headers={"Retry-After": str(max(1, math.ceil(wait or 1)))},
    )


async def _on_unhandled(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error", extra={"path": request.url.path})
    return problem_response(
        request, 500, "internal-error", "An unexpected error occurred; it has been logged"
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(DomainError, _on_domain)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(DBAPIError, _on_database)
    app.add_exception_handler(SQLAlchemyTimeout, _on_pool_timeout)
    app.add_exception_handler(RedisError, _on_redis)
    app.add_exception_handler(ChainUnavailable, _on_chain_unavailable)
    app.add_exception_handler(Exception, _on_unhandled)
