"""Exactly-once writes: idempotency, audit and the single commit, in one context manager.

    async with write_context(request, principal, operation="funds.lock", user_uid=uid) as ctx:
        ...  # the effect, through ctx.session (flush only, never commit)
        return ctx.respond(201, single("fund_lock", ...))

- The key is the body's ``idempotency_key`` (or the ``Idempotency-Key`` header), scoped per
  project (per user for user-token writes), kept 24 h.
- A stored response for (scope, key) with the same request hash is replayed byte for byte with
  ``Idempotent-Replayed: true``; another body gives 409 ``idempotency-key-reused``.
- A Redis SET NX lock marks the key in flight (409 ``idempotency-key-in-use``); the unique
  (scope, key) row, written in the effect's transaction, is the final arbiter.
- The audit row is written in the same transaction; a refused call (any ProblemError) is rolled
  back and audited as ``failed`` without storing a response, so it can be retried.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from redis.asyncio import Redis
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.audit import new_audit, redact
from api.auth.principal import Principal, ProjectPrincipal
from api.auth.project import parsed_body, request_target
from api.auth.signature import canonical_body
from api.errors import ProblemError
from api.ratelimit import client_ip
from core.logging import request_id_var
from db.models.access import AuditLog, IdempotencyRecord

log = logging.getLogger("mccgw.idempotency")

IDEMPOTENCY_TTL = timedelta(hours=24)
LOCK_SECONDS = 60
REPLAY_HEADER = "Idempotent-Replayed"
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end"


class IdempotentReplay(Exception):
    """Raised to short-circuit a route with a stored response (rendered by its handler)."""

    def __init__(self, record: IdempotencyRecord) -> None:
        super().__init__("replay")
        self.record = record


async def _on_replay(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, IdempotentReplay)
    record = exc.record
    return Response(
        record.response_body,
        status_code=record.status_code,
        media_type=record.content_type,
        headers={REPLAY_HEADER: "true"},
    )


def install_idempotency(app: FastAPI) -> None:
    app.add_exception_handler(IdempotentReplay, _on_replay)


@dataclass
class WriteContext:
    session: AsyncSession
    principal: Principal
    operation: str
    key: str
    scope: str
    body: Any
    user_uid: str | None
    audit: AuditLog
    _result: tuple[int, bytes, str, str] | None = field(default=None, repr=False)

    @property
    def audit_id(self) -> uuid.UUID:
        return self.audit.id

    def workflow_id(self, prefix: str) -> str:
        """Deterministic per (scope, key): a duplicate can never start a second workflow."""
        digest = hashlib.sha256(self.key.encode()).hexdigest()[:32]
        return f"{prefix}-{self.scope.replace(':', '')}-{digest}"

    def respond(self, status: int, body: Any, *, audit_status: str = "success") -> Response:
        """The response to send now and to replay later (``audit_status`` ``pending`` when a
        workflow decides the outcome; see api.audit.mark_audit)."""
        content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        self._result = (status, content, "application/json", audit_status)
        return Response(content, status_code=status, media_type="application/json")


def _key(request: Request, body: Any) -> str:
    header = request.headers.get("idempotency-key")
    field_value = body.get("idempotency_key") if isinstance(body, dict) else None
    if header and field_value and header != field_value:
        raise _invalid("idempotency_key and the Idempotency-Key header differ")
    key = field_value or header
    if key is None:
        raise _invalid("idempotency_key is required on every write")
    if not isinstance(key, str) or not 1 <= len(key) <= 255 or not key.isprintable():
        raise _invalid("idempotency_key must be 1-255 printable characters")
    return key


def _invalid(message: str) -> ProblemError:
    return ProblemError(
        f"Invalid request: idempotency_key: {message}",
        status=422,
        slug="validation-error",
        errors=[{"field": "idempotency_key", "message": message}],
    )


def _request_hash(request: Request, body: Any) -> str:
    # The key itself is not part of the fingerprint: body field and header are equivalent.
    if isinstance(body, dict):
        body = {k: v for k, v in body.items() if k != "idempotency_key"}
    fingerprint = "\n".join((request.method, request_target(request), canonical_body(body)))
    return hashlib.sha256(fingerprint.encode()).hexdigest()


async def _stored(session: AsyncSession, scope: str, key: str) -> IdempotencyRecord | None:
    record = await session.scalar(
        select(IdempotencyRecord).where(
            IdempotencyRecord.scope == scope, IdempotencyRecord.key == key
        )
    )
    if record is not None and record.expires_at <= datetime.now(UTC):
        # Past 24 h the key is free again.
        await session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id == record.id))
        return None
    return record


def _replay_or_conflict(record: IdempotencyRecord, request_hash: str) -> Exception:
    if record.request_hash != request_hash:
        return ProblemError(
            "This idempotency_key was already used with a different request",
            status=409,
            slug="idempotency-key-reused",
        )
    return IdempotentReplay(record)


def _in_use() -> ProblemError:
    return ProblemError(
        "A request with this idempotency_key is still in flight; retry shortly",
        status=409,
        slug="idempotency-key-in-use",
        headers={"Retry-After": "1"},
    )


@asynccontextmanager
async def write_context(
    request: Request, principal: Principal, *, operation: str, user_uid: str | None = None
) -> AsyncIterator[WriteContext]:
    body = await parsed_body(request)
    key = _key(request, body)
    if isinstance(principal, ProjectPrincipal):
        scope, actor, project_id = (
            principal.rate_key,
            f"project:{principal.project_id}",
            principal.project_id,
        )
    else:
        scope, actor, project_id = principal.rate_key, f"user:{principal.uid}", None
    request_hash = _request_hash(request, body)
    sessions: async_sessionmaker[AsyncSession] = request.app.state.session_maker
    redis: Redis = request.app.state.redis

    async with sessions() as session:
        if (record := await _stored(session, scope, key)) is not None:
            raise _replay_or_conflict(record, request_hash)
        lock = f"idem:{scope}:{hashlib.sha256(key.encode()).hexdigest()}"
        token = uuid.uuid4().hex
        if not await redis.set(lock, token, nx=True, ex=LOCK_SECONDS):
            await session.rollback()  # a fresh snapshot: the first may have just committed
            if (record := await _stored(session, scope, key)) is not None:
                raise _replay_or_conflict(record, request_hash)
            raise _in_use()
        try:
            audit_args: dict[str, Any] = {
                "actor": actor,
                "operation": operation,
                "project_id": project_id,
                "user_uid": user_uid,
                "request_body": body,
                "idempotency_key": key,
                "client_ip": client_ip(request.scope),
                "request_id": request_id_var.get(),
            }
            audit = new_audit(**audit_args)
            session.add(audit)
            ctx = WriteContext(session, principal, operation, key, scope, body, user_uid, audit)
            try:
                yield ctx
            except Exception as exc:
                await session.rollback()
                await _audit_failure(session, audit_args, exc)
                raise
            if ctx._result is None:
                raise RuntimeError("a write_context block must return ctx.respond(...)")
            status, content, content_type, audit_status = ctx._result
            audit.status = audit_status
            audit.status_code = status
            audit.response_body = redact(json.loads(content))
            session.add(
                IdempotencyRecord(
                    scope=scope,
                    key=key,
                    request_hash=request_hash,
                    status_code=status,
                    response_body=content,
                    content_type=content_type,
                    expires_at=datetime.now(UTC) + IDEMPOTENCY_TTL,
                )
            )
            try:
                await session.commit()
            except IntegrityError:
                # Lost a race the lock did not cover (it expired): the winner's row decides.
                await session.rollback()
                if (record := await _stored(session, scope, key)) is not None:
                    raise _replay_or_conflict(record, request_hash) from None
                raise _in_use() from None
        finally:
            await redis.eval(_RELEASE, 1, lock, token)


async def _audit_failure(session: AsyncSession, audit_args: dict[str, Any], exc: Exception) -> None:
    try:
        audit = new_audit(status="failed", **audit_args)
        if isinstance(exc, ProblemError):
            audit.status_code = exc.status
            audit.response_body = {"type": exc.slug, "status": exc.status, "detail": exc.detail}
        else:
            audit.status_code = 500
        session.add(audit)
        await session.commit()
    except Exception:  # the original error matters more than its audit row
        log.exception("could not record a failed audit row")
        await session.rollback()
