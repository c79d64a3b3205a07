"""Hostile-input guard: every request's target and body are checked before any route (and
before authentication) reads them, so no size, shape or byte can turn into a 500.

- The path and query must not carry a NUL byte (PostgreSQL refuses it in text): 422.
- Bodies are capped per route (``BODY_LIMITS``: JSON 256 KB, batch routes 1 MB, the OAuth
  forms 16 KB, the avatar upload 2 MB):
  413 ``payload-too-large`` from ``Content-Length`` at once, or as soon as a streamed body
  passes the cap. Nothing is parsed before the cap is known to hold.
- JSON bodies must be UTF-8 (a ``charset`` other than utf-8 is 415) and strict JSON: no
  ``NaN``/``Infinity``, no duplicate keys, no integer past Python's digit limit (400
  ``malformed-request``); at most ``MAX_DEPTH`` levels, ``MAX_KEYS`` keys per object,
  ``MAX_ITEMS`` items per list, and no NUL or lone surrogate in any string or key (422
  ``validation-error``).
- Form bodies (the OAuth endpoints) must not carry a NUL either.
- A method that takes no body (GET, HEAD, OPTIONS, ...) gets none: a declared body is 400
  ``malformed-request`` unread, a streamed one at its first byte, so nothing (authentication
  included) ever buffers or parses it. Two ``Content-Type`` headers are 400 as well.
- Bodies with no or a foreign media type are never parsed as JSON (the request-context layer
  answers 415 for them, and project authentication parses only a JSON body).

The checked body is handed on unchanged; routes parse it as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

from starlette.types import Message, Receive, Scope, Send

from api.asgi import BODY_METHODS, HttpMiddleware, header, problem_body, send_problem

JSON_LIMIT = 256 * 1024
BATCH_LIMIT = 1024 * 1024  # batch routes carry up to 100 items
FORM_LIMIT = 16 * 1024
AVATAR_LIMIT = 2 * 1024 * 1024
# (path regex, limit in bytes) — first match wins; JSON_LIMIT otherwise.
BODY_LIMITS: list[tuple[re.Pattern[str], int]] = [
    (re.compile(r"^/v1/users/me/avatar/?$"), AVATAR_LIMIT),
    (re.compile(r"^/auth/"), FORM_LIMIT),
    (re.compile(r"^/(v1|api/open)/.*batch"), BATCH_LIMIT),
]
MAX_DEPTH = 32
MAX_KEYS = 1000
MAX_ITEMS = 1000


class Refused(Exception):
    def __init__(self, status: int, slug: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.slug, self.detail, self.field = status, slug, detail, field


def body_limit(path: str) -> int:
    for pattern, limit in BODY_LIMITS:
        if pattern.match(path):
            return limit
    return JSON_LIMIT


def _check_target(scope: Scope) -> None:
    raw = scope.get("raw_path") or scope.get("path", "").encode()
    if b"\x00" in unquote_to_bytes(raw) or "\x00" in scope.get("path", ""):
        raise Refused(422, "validation-error", "The path must not contain a NUL byte", "path")
    query = scope.get("query_string", b"")
    if b"\x00" in unquote_to_bytes(query.replace(b"+", b" ")):
        raise Refused(422, "validation-error", "The query must not contain a NUL byte", "query")


def _depth(raw: bytes) -> int:
    """The nesting depth of a JSON text, without recursion (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len(pairs) > MAX_KEYS:
        raise Refused(422, "validation-error", f"An object has more than {MAX_KEYS} keys", "body")
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise Refused(400, "malformed-request", f"Duplicate key {key[:40]!r} in the body")
        result[key] = value
    return result


def _constant(name: str) -> Any:
    raise Refused(400, "malformed-request", f"{name} is not a JSON number")


def _walk(value: Any) -> Iterator[Any]:
    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            if len(item) > MAX_ITEMS:
                raise Refused(
                    422, "validation-error", f"A list has more than {MAX_ITEMS} items", "body"
                )
            stack.extend(item)


def check_json(raw: bytes) -> None:
    if not raw.strip():
        return
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _depth(raw) > MAX_DEPTH:
        raise Refused(
            422, "validation-error", f"The body is nested more than {MAX_DEPTH} deep", "body"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(400, "malformed-request", "The body is not valid UTF-8") from exc
    try:
        parsed = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_constant)
    except ValueError as exc:  # includes integers past the digit limit
        raise Refused(400, "malformed-request", "The request body is not valid JSON") from exc
    for item in _walk(parsed):
        if isinstance(item, str):
            if "\x00" in item:
                raise Refused(
                    422, "validation-error", "Strings must not contain a NUL byte", "body"
                )
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:  # a lone surrogate escape such as "\udfb5"
                raise Refused(
                    422, "validation-error", "Strings must be valid Unicode text", "body"
                ) from exc


def check_form(raw: bytes) -> None:
    try:
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError) as exc:
        raise Refused(400, "malformed-request", "The form body is not valid") from exc
    if any("\x00" in k or "\x00" in v for k, v in pairs):
        raise Refused(422, "validation-error", "Form fields must not contain a NUL byte", "body")


def _no_body_refused(scope: Scope) -> Refused:
    method = str(scope.get("method", ""))[:10]
    return Refused(400, "malformed-request", f"A {method} request takes no body")


def _one_content_type(scope: Scope) -> None:
    """Two Content-Type headers could be read differently by two layers: refused."""
    if sum(1 for name, _ in scope.get("headers", ()) if name == b"content-type") > 1:
        raise Refused(400, "malformed-request", "The request has more than one Content-Type")


class BodyGuardMiddleware(HttpMiddleware):
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            _check_target(scope)
            _one_content_type(scope)
            if scope["method"] not in BODY_METHODS:
                raw = await self._no_body(scope, receive)
            else:
                raw = await self._read(scope, receive, body_limit(scope.get("path", "")))
                self._check_body(scope, raw)
        except Refused as exc:
            await self._problem(scope, send, exc)
            return

        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()  # http.disconnect

        await self.app(scope, replay, send)

    async def _no_body(self, scope: Scope, receive: Receive) -> bytes:
        """GET, HEAD, OPTIONS...: no body. A declared one is refused unread; a streamed one
        is refused at its first byte (an empty chunked body passes)."""
        declared = header(scope, b"content-length")
        if declared is not None and declared.strip() not in ("", "0"):
            raise _no_body_refused(scope)
        if header(scope, b"transfer-encoding") is None:
            return b""
        return await self._read(scope, receive, 0)

    async def _read(self, scope: Scope, receive: Receive, limit: int) -> bytes:
        declared = header(scope, b"content-length")
        too_large = (
            Refused(413, "payload-too-large", f"The body exceeds {limit} bytes")
            if limit
            else _no_body_refused(scope)
        )
        if (
            declared is not None
            and declared.strip().isascii()
            and declared.strip().isdecimal()
            and int(declared) > limit
        ):
            raise too_large
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    @staticmethod
    def _check_body(scope: Scope, raw: bytes) -> None:
        content_type = (header(scope, b"content-type") or "").lower()
        media, _, params = content_type.partition(";")
        media = media.strip()
        if media == "application/json" or media.endswith("+json"):
            charset = re.search(r"charset\s*=\s*\"?([\w-]+)", params)
            if charset and charset.group(1) not in ("utf-8", "utf8"):
                raise Refused(
                    415, "unsupported-media-type", "JSON bodies must be UTF-8 (charset=utf-8)"
                )
            check_json(raw)
        elif media == "application/x-www-form-urlencoded":
            check_form(raw)

    async def _problem(self, scope: Scope, send: Send, exc: Refused) -> None:
        body = problem_body(self.base_url, scope, exc.status, exc.slug, exc.detail)
        if exc.field is not None:
            body["errors"] = [{"field": exc.field, "message": exc.detail}]
        await send_problem(send, body)
