"""The stored answer of an idempotency key, in PostgreSQL (``api.idempotency`` is the unit of
work that writes it): claimed with the effect and its audit row in one statement, found again,
and replayed byte for byte (``Idempotent-Replayed: true``) or refused.

The unique (scope, key) row is the arbiter of exactly once: Redis only keeps a copy of the
answer and the in-flight lock (``api.idempotency_redis``). An answer that carries a secret shown
once (a generated webhook secret) is stored sealed with the master key, in PostgreSQL and in
Redis alike, and opened only to replay it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import NoReturn

from fastapi import FastAPI, Request
from fastapi.responses import Response
from sqlalchemy import TextClause, bindparam, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from core.config import Settings
from core.errors import DomainError
from core.security import decrypt_secret, encrypt_secret
from db.base import table_of
from db.models.access import AuditLog, IdempotencyRecord

IDEMPOTENCY_TTL = timedelta(hours=24)
REPLAY_HEADER = "Idempotent-Replayed"
SEALED = b"sealed:"


class IdempotentReplay(Exception):
    """Raised to short-circuit a route with a stored response (rendered by its handler)."""

    def __init__(self, record: IdempotencyRecord) -> None:
        super().__init__("replay")
        # Plain values, read now: raised inside a write's block, the replay passes its rollback,
        # which expires the record, and its session is closed before the handler renders it.
        self.status_code = record.status_code
        self.response_body = record.response_body
        self.content_type = record.content_type


def new_record(
    scope: str,
    key: str,
    request_hash: str,
    answer: tuple[int, bytes, str, bool],
    settings: Settings,
) -> IdempotencyRecord:
    """The record of a key's answer ``(status, content, content type, sealed)``, kept 24 h."""
    status, content, content_type, sealed = answer
    return IdempotencyRecord(
        scope=scope,
        key=key,
        request_hash=request_hash,
        status_code=status,
        response_body=_seal(content, settings) if sealed else content,
        content_type=content_type,
        expires_at=datetime.now(UTC) + IDEMPOTENCY_TTL,
    )


def _seal(content: bytes, settings: Settings) -> bytes:
    sealed = encrypt_secret(content.decode(), settings.master_key, settings.master_key_id)
    return SEALED + sealed.encode()


def _unseal(stored: bytes, settings: Settings) -> bytes:
    if not stored.startswith(SEALED):
        return stored
    keys = {settings.master_key_id: settings.master_key}
    return decrypt_secret(stored[len(SEALED) :].decode(), keys).encode()


async def _on_replay(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, IdempotentReplay)
    return Response(
        _unseal(exc.response_body, request.app.state.settings),
        status_code=exc.status_code,
        media_type=exc.content_type,
        headers={REPLAY_HEADER: "true"},
    )


def install_idempotency(app: FastAPI) -> None:
    app.add_exception_handler(IdempotentReplay, _on_replay)


async def stored(session: AsyncSession, scope: str, key: str) -> IdempotencyRecord | None:
    """The live answer of (scope, key); past its 24 h the key is free again (None)."""
    record = await session.scalar(
        select(IdempotencyRecord).where(
            IdempotencyRecord.scope == scope, IdempotencyRecord.key == key
        )
    )
    if record is not None and record.expires_at <= datetime.now(UTC):
        return None
    return record


def replay_or_conflict(record: IdempotencyRecord, request_hash: str) -> Exception:
    """The stored answer, for the same request; 409 for another one under the same key."""
    if record.request_hash != request_hash:
        return DomainError(
            "This idempotency_key was already used with a different request",
            status=409,
            slug="idempotency-key-reused",
        )
    return IdempotentReplay(record)


def in_use() -> DomainError:
    return DomainError(
        "A request with this idempotency_key is still in flight; retry shortly",
        status=409,
        slug="idempotency-key-in-use",
        headers={"Retry-After": "1"},
    )


def expired_key() -> DomainError:
    """The key's effect exists but its stored answer is past its 24 h: the key is spent."""
    return DomainError(
        "This idempotency_key was used more than 24 hours ago; send a new key",
        status=409,
        slug="idempotency-key-reused",
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


async def claim_or_replay(
    session: AsyncSession, record: IdempotencyRecord, audit: AuditLog
) -> None:
    """Insert the audit row and the record in one statement (one round trip), an expired
    record of the key being replaced. A live one wins: the key was done before and Redis
    forgot, so this run is rolled back and the stored answer replayed (or refused)."""
    params = {f"r_{c}": getattr(record, c) for c in _RECORD_COLUMNS}
    params |= {f"a_{c}": getattr(audit, c) for c in _AUDIT_COLUMNS}
    if (await session.execute(_CLAIM, params)).first() is not None:
        return
    await session.rollback()
    found = await stored(session, record.scope, record.key)
    if found is None:
        raise in_use()
    raise replay_or_conflict(found, record.request_hash)


async def replay_stored(session: AsyncSession, scope: str, key: str, request_hash: str) -> NoReturn:
    """The record derived from this key already exists: the key was executed before (Redis
    forgot its marker, or the key is being reused). Answer with the stored response only when it
    is still live and the request matches it; a key whose answer has expired (or was swept) is
    spent: 409, never an old, unrelated answer. (The derived record and its answer were committed
    together, so no stored answer means an expired one, never a request still in flight.)"""
    record = await stored(session, scope, key)
    if record is not None:
        raise replay_or_conflict(record, request_hash)
    raise expired_key()
