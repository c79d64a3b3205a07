"""Outermost ASGI middleware: request id, access log, metrics, media-type check, last-resort
error rendering (so even an unhandled error carries X-Request-ID and a problem body)."""

from __future__ import annotations

import logging
import os
import re
import time

from starlette.types import Message, Receive, Scope, Send

from api.asgi import (
    BODY_METHODS,
    RATE_SLOT,
    AnswerStart,
    HttpMiddleware,
    header,
    problem_body,
    send_problem,
)
from api.metrics import HTTP_LATENCY, HTTP_REQUESTS
from api.versions import deprecation_headers
from core.logging import request_id_var

log = logging.getLogger("mccgw.http")

_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
# No page of the gateway may be framed (the sign-in and consent page, the console): a framing
# site could overlay them (clickjacking). Sent on every answer; JSON ignores it.
_NO_FRAMING = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
)
# Metric labels come from fixed sets: a made-up method cannot create a new time series.
_METRIC_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
_ACCEPTED_MEDIA = ("application/json", "multipart/form-data", "application/x-www-form-urlencoded")


def _media_ok(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return media in _ACCEPTED_MEDIA or media.endswith("+json")


class RequestContextMiddleware(HttpMiddleware):
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        incoming = header(scope, b"x-request-id")
        # 32 random hex digits, as uuid4().hex gave, for a third of its CPU.
        request_id = incoming if incoming and _SANE_ID.match(incoming) else os.urandom(16).hex()
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500
        response_started = False
        # The rate limit's headers come from here too, one wrapper for both (api.ratelimit).
        rate: AnswerStart | None = scope.get(RATE_SLOT)
        replaced = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started, replaced
            if replaced:
                return  # the app's own answer was swapped for the rate limit's 429
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                headers.extend(_NO_FRAMING)
                # A deprecated operation says so on every answer (RFC 9745, RFC 8594).
                headers.extend(deprecation_headers(scope.get("route")))
                if rate is not None:
                    message["headers"] = headers
                    if rate.pending() and await rate.start(message, send):
                        replaced = True
                        return
                    rate.add(headers)
                message["headers"] = headers
            await send(message)

        try:
            if scope["method"] in BODY_METHODS and self._has_body(scope):
                content_type = header(scope, b"content-type")
                if not _media_ok(content_type):
                    await self._problem(
                        scope, send_with_id, 415, "unsupported-media-type",
                        f"Content-Type {content_type or '(none)'} is not accepted; "
                        "send application/json",
                    )  # fmt: skip
                    return
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception("unhandled error", extra={"path": scope.get("path")})
            if not response_started:
                await self._problem(
                    scope, send_with_id, 500, "internal-error",
                    "An unexpected error occurred; it has been logged",
                )  # fmt: skip
        finally:
            elapsed = time.perf_counter() - started
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            method = scope["method"] if scope["method"] in _METRIC_METHODS else "OTHER"
            HTTP_REQUESTS.labels(method, template, str(status)).inc()
            HTTP_LATENCY.labels(method, template).observe(elapsed)
            log.info(
                "%s %s %s",
                scope["method"],
                scope["path"],
                status,
                extra={
                    "route": template,
                    "status": status,
                    "latency_ms": round(elapsed * 1000, 2),
                    "method": scope["method"],
                    "path": scope["path"],
                },
            )
            request_id_var.reset(token)

    @staticmethod
    def _has_body(scope: Scope) -> bool:
        length = header(scope, b"content-length")
        if length is not None:
            return length.strip() not in ("", "0")
        return header(scope, b"transfer-encoding") is not None

    async def _problem(self, scope: Scope, send: Send, status: int, slug: str, detail: str) -> None:
        await send_problem(send, problem_body(self.base_url, scope, status, slug, detail))
