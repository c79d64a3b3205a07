"""Exactly-once writes: idempotency, audit and the single commit, in one context manager.

    async with write_context(request, principal, operation="funds.lock", user_uid=uid) as ctx:
        ...  # the effect, through ctx.session (flush only, never commit)
        return ctx.respond(201, single("fund_lock", ...))

- The key is the body's ``idempotency_key`` (or the ``Idempotency-Key`` header), scoped per
  project (per user for user-token writes), kept 24 h.
- A stored response for (scope, key) with the same request hash is replayed byte for byte with
  ``Idempotent-Replayed: true``; another body gives 409 ``idempotency-key-reused``.
- One Redis script either finds the finished key (replayed from Redis) or takes the in-flight
  lock (SET NX; otherwise 409 ``idempotency-key-in-use``). The unique (scope, key) row, written
  in the effect's transaction, is the final arbiter: if Redis lost the marker, the repeated
  effect is rolled back and the stored response is replayed. Side effects outside PostgreSQL
  must be keyed too (``ctx.workflow_id``).
- The audit row is written in the same transaction; a refused call (any DomainError) is rolled
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
from typing import Annotated, Any, NoReturn

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import Field
from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy import TextClause, bindparam, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from access.ratelimit import client_ip
from api.auth.principal import Principal, ProjectPrincipal
from api.auth.project import parsed_body, request_target
from api.auth.signature import canonical_body
from api.errors import answered_status, invalid_field
from api.idempotency_redis import BEGIN, FINISH, RELEASE, done_value, from_done, script
from core.config import Settings
from core.errors import DomainError
from core.logging import request_id_var
from core.security import decrypt_secret, encrypt_secret
from core.workflow_ids import request_workflow_id
from db.base import table_of
from db.last import commit_last
from db.models.access import AuditLog, IdempotencyRecord
from events.audit import new_audit, redact

# A write body's ``idempotency_key`` field (``idempotency_key: IdempotencyKey = None``): the
# one description every body that documents the key gives it.
IdempotencyKey = Annotated[
    str | None, Field(description="Required unless the Idempotency-Key header is sent")
]
# The key of a naturally idempotent write (``write_context(..., key_optional=True)``).
OptionalIdempotencyKey = Annotated[
    str | None,
    Field(description="Optional (the write is naturally idempotent); with one, a retry "
          "within 24 h is replayed, not run again"),
]  # fmt: skip

log = logging.getLogger("mccgw.idempotency")

IDEMPOTENCY_TTL = timedelta(hours=24)
LOCK_SECONDS = 60
REPLAY_HEADER = "Idempotent-Replayed"


class IdempotentReplay(Exception):
    """Raised to short-circuit a route with a stored response (rendered by its handler)."""

    def __init__(self, record: IdempotencyRecord) -> None:
        super().__init__("replay")
        self.record = record


# A stored response that carries a secret shown once (e.g. a generated webhook secret) is
# kept sealed with the master key, in PostgreSQL and in Redis alike, and opened only to replay.
SEALED = b"sealed:"


def _seal(content: bytes, settings: Settings) -> bytes:
    return (
        SEALED
        + encrypt_secret(content.decode(), settings.master_key, settings.master_key_id).encode()
    )


def _unseal(stored: bytes, settings: Settings) -> bytes:
    if not stored.startswith(SEALED):
        return stored
    keys = {settings.master_key_id: settings.master_key}
    return decrypt_secret(stored[len(SEALED) :].decode(), keys).encode()


async def _on_replay(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, IdempotentReplay)
    record = exc.record
    return Response(
        _unseal(record.response_body, request.app.state.settings),
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
    # sha256 of method, target and canonical body (without the key): what a replay must match.
    request_hash: str = ""
    _result: tuple[int, bytes, str, str, bool] | None = field(default=None, repr=False)

    @property
    def audit_id(self) -> uuid.UUID:
        return self.audit.id

    def workflow_id(self, prefix: str) -> str:
        """Deterministic per (scope, key): a duplicate can never start a second workflow."""
        return request_workflow_id(prefix, self.scope, self.key)

    def respond(
        self, status: int, body: Any, *, audit_status: str = "success", sealed: bool = False
    ) -> Response:
        """The response to send now and to replay later (``audit_status`` ``pending`` when a
        workflow decides the outcome; see events.audit.mark_audit). ``sealed``: it carries a
        secret, so the stored copy is encrypted (the audit row redacts it anyway)."""
        content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        self._result = (status, content, "application/json", audit_status, sealed)
        return Response(content, status_code=status, media_type="application/json")


def _key(request: Request, body: Any, required: bool = True) -> str | None:
    header = request.headers.get("idempotency-key")
    field_value = body.get("idempotency_key") if isinstance(body, dict) else None
    if header and field_value and header != field_value:
        raise _invalid("idempotency_key and the Idempotency-Key header differ")
    key = field_value or header
    if key is None:
        if not required:
            return None
        raise _invalid("idempotency_key is required on this write")
    if not isinstance(key, str) or not 1 <= len(key) <= 255 or not key.isprintable():
        raise _invalid("idempotency_key must be 1-255 printable characters")
    return key


def _invalid(message: str) -> DomainError:
    return invalid_field("idempotency_key", message, f"Invalid request: idempotency_key: {message}")


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
        return None  # past 24 h the key is free again
    return record


def expired_key() -> DomainError:
    """The key's effect exists but its stored answer is past its 24 h: the key is spent."""
    return DomainError(
        "This idempotency_key was used more than 24 hours ago; send a new key",
        status=409,
        slug="idempotency-key-reused",
    )


def _replay_or_conflict(record: IdempotencyRecord, request_hash: str) -> Exception:
    if record.request_hash != request_hash:
        return DomainError(
            "This idempotency_key was already used with a different request",
            status=409,
            slug="idempotency-key-reused",
        )
    return IdempotentReplay(record)


def _in_use() -> DomainError:
    return DomainError(
        "A request with this idempotency_key is still in flight; retry shortly",
        status=409,
        slug="idempotency-key-in-use",
        headers={"Retry-After": "1"},
    )


_RECORD_COLUMNS = (
    "scope", "key", "request_hash", "status_code", "response_body", "content_type", "expires_at",
)  # fmt: skip
_AUDIT_COLUMNS = tuple(
    c.key for c in AuditLog.__table__.columns if c.key not in ("created_at", "updated_at")
)


def _claim_statement() -> TextClause:
    """Built once: the statement is the same for every write, only its parameters change (a
    per-request Core construct cost more CPU than the round trip it saves)."""
    record, audit = table_of(IdempotencyRecord), table_of(AuditLog)
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in _RECORD_COLUMNS)
    sql = f"""
WITH audit_row AS (
    INSERT INTO {audit.name} ({", ".join(_AUDIT_COLUMNS)})
    VALUES ({", ".join(f":a_{c}" for c in _AUDIT_COLUMNS)})
    RETURNING id
)
INSERT INTO {record.name} AS r ({", ".join(_RECORD_COLUMNS)})
VALUES ({", ".join(f":r_{c}" for c in _RECORD_COLUMNS)})
ON CONFLICT (scope, key) DO UPDATE SET {updates}, created_at = now()
WHERE r.expires_at <= now()
RETURNING r.id
"""
    return text(sql).bindparams(
        *(bindparam(f"a_{c}", type_=audit.c[c].type) for c in _AUDIT_COLUMNS),
        *(bindparam(f"r_{c}", type_=record.c[c].type) for c in _RECORD_COLUMNS),
    )


_CLAIM = _claim_statement()


async def _claim(session: AsyncSession, record: IdempotencyRecord, audit: AuditLog) -> bool:
    """Insert the audit row and the record in one statement (one round trip); a live record
    for (scope, key) wins (False), an expired one is replaced."""
    params = {f"r_{c}": getattr(record, c) for c in _RECORD_COLUMNS}
    params |= {f"a_{c}": getattr(audit, c) for c in _AUDIT_COLUMNS}
    return (await session.execute(_CLAIM, params)).first() is not None


@asynccontextmanager
async def write_context(
    request: Request,
    principal: Principal,
    *,
    operation: str,
    user_uid: str | None = None,
    key_optional: bool = False,
) -> AsyncIterator[WriteContext]:
    """The one commit point of a write: its audit row, and (with a key) its idempotency record.
    ``key_optional``: a naturally idempotent write (a profile PATCH, an attribute upsert, a
    price set) may come without a key; it then runs once per request, audited, not replayed."""
    body = await parsed_body(request)
    found = _key(request, body, required=not key_optional)
    audit_args = _audit_args(request, principal, operation, user_uid, body, found)
    if found is None:
        async with _unkeyed(request, principal, audit_args) as ctx:
            yield ctx
        return
    key = found
    scope = principal.rate_key
    request_hash = _request_hash(request, body)
    sessions: async_sessionmaker[AsyncSession] = request.app.state.session_maker
    redis: Redis = request.app.state.redis

    # Redis is the fast path (done marker + in-flight lock); PostgreSQL's unique (scope, key)
    # row, written with the effect, stays the arbiter if Redis ever forgets.
    digest = hashlib.sha256(key.encode()).hexdigest()
    done_key, lock = f"idem:done:{scope}:{digest}", f"idem:{scope}:{digest}"
    token = uuid.uuid4().hex
    state = await script(redis, BEGIN)(
        keys=[done_key, lock], args=[token, LOCK_SECONDS], client=redis
    )
    if state[0] == 1:
        raise _replay_or_conflict(from_done(state[1]), request_hash)
    if state[0] == 3:
        raise _in_use()

    finished = False
    try:
        async with sessions() as session:
            # Written after the block, with the record: one INSERT with the final status.
            audit = new_audit(**audit_args)
            ctx = WriteContext(
                session, principal, operation, key, scope, body, user_uid, audit, request_hash
            )
            try:
                yield ctx
            except Exception as exc:
                await session.rollback()
                await _audit_failure(session, audit_args, exc)
                raise
            status, content, content_type, sealed = _answered(ctx)
            record = IdempotencyRecord(
                scope=scope,
                key=key,
                request_hash=request_hash,
                status_code=status,
                response_body=_seal(content, request.app.state.settings) if sealed else content,
                content_type=content_type,
                expires_at=datetime.now(UTC) + IDEMPOTENCY_TTL,
            )
            if not await _claim(session, record, audit):
                # Done before, but Redis forgot: undo this run and answer from the stored row.
                await session.rollback()
                stored = await _stored(session, scope, key)
                if stored is None:
                    raise _in_use()
                raise _replay_or_conflict(stored, request_hash)
            try:
                # Statements on rows every accept shares, last (db.last): their locks are held
                # for them and the commit only, not while the rest of the request (or the claim
                # above) ran. A refusal here undoes the claim with everything else.
                await commit_last(session)
            except Exception as exc:
                await session.rollback()
                await _audit_failure(session, audit_args, exc)
                raise
            finished = True
            try:
                await script(redis, FINISH)(
                    keys=[done_key, lock],
                    args=[token, done_value(record), int(IDEMPOTENCY_TTL.total_seconds())],
                    client=redis,
                )
            except RedisError as exc:
                # Committed: the answer stands. Without the done marker a retry is told to wait
                # (the lock lapses in LOCK_SECONDS) and is then replayed from PostgreSQL.
                log.warning("idempotency key %s committed but not published: %r", key, exc)
    finally:
        if not finished:
            await script(redis, RELEASE)(keys=[lock], args=[token], client=redis)


@asynccontextmanager
async def _unkeyed(
    request: Request, principal: Principal, audit_args: dict[str, Any]
) -> AsyncIterator[WriteContext]:
    """A keyless naturally idempotent write: the effect and its audit row, one commit."""
    sessions: async_sessionmaker[AsyncSession] = request.app.state.session_maker
    async with sessions() as session:
        audit = new_audit(**audit_args)
        body, user_uid = audit_args["request_body"], audit_args["user_uid"]
        operation = audit_args["operation"]
        ctx = WriteContext(
            session, principal, operation, "", principal.rate_key, body, user_uid, audit
        )
        try:
            yield ctx
            _answered(ctx)
            session.add(audit)
            await commit_last(session)
        except Exception as exc:
            await session.rollback()
            await _audit_failure(session, audit_args, exc)
            raise


def _audit_args(
    request: Request,
    principal: Principal,
    operation: str,
    user_uid: str | None,
    body: Any,
    key: str | None,
) -> dict[str, Any]:
    """The audit row's facts of a write, keyed or not: its success row and, when it fails, its
    failure row (``_audit_failure``) are both made from them."""
    if isinstance(principal, ProjectPrincipal):
        actor, project_id = f"project:{principal.project_id}", principal.project_id
    else:
        actor, project_id = f"user:{principal.uid}", None
    return {
        "actor": actor,
        "operation": operation,
        "project_id": project_id,
        "user_uid": user_uid,
        "request_body": body,
        "idempotency_key": key,
        "client_ip": client_ip(request.scope),
        "request_id": request_id_var.get(),
    }


def _answered(ctx: WriteContext) -> tuple[int, bytes, str, bool]:
    """The block's answer, written onto its audit row: (status, content, content type, sealed)."""
    if ctx._result is None:
        raise RuntimeError("a write_context block must return ctx.respond(...)")
    status, content, content_type, audit_status, sealed = ctx._result
    ctx.audit.status = audit_status
    ctx.audit.status_code = status
    ctx.audit.response_body = redact(json.loads(content))
    return status, content, content_type, sealed


async def _audit_failure(session: AsyncSession, audit_args: dict[str, Any], exc: Exception) -> None:
    try:
        audit = new_audit(status="failed", **audit_args)
        status, slug = answered_status(exc)
        audit.status_code = status
        audit.response_body = {"type": slug, "status": status}
        if isinstance(exc, DomainError):
            audit.response_body["detail"] = exc.detail
        session.add(audit)
        await session.commit()
    except Exception:  # the original error matters more than its audit row
        log.exception("could not record a failed audit row")
        await session.rollback()


async def replay_if_done(ctx: WriteContext) -> NoReturn:
    """The record derived from this key already exists: the key was executed before (Redis
    forgot its marker, or the key is being reused). Answer with the stored response only when it
    is still live and the request matches it; a key whose answer has expired (or was swept) is
    spent: 409, never an old, unrelated answer. (The derived record and its answer were committed
    together, so no stored answer means an expired one, never a request still in flight.)"""
    record = await _stored(ctx.session, ctx.scope, ctx.key)
    if record is not None:
        raise _replay_or_conflict(record, ctx.request_hash)
    raise expired_key()
