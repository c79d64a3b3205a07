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
from typing import Any, NoReturn

from fastapi import FastAPI, Request
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import TypeEngine

from core.config import Settings
from core.errors import DomainError
from core.security import decrypt_secret, encrypt_secret
from db.base import table_of
from db.last import LastStatement
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


class KeyDoneBefore(Exception):
    """The claim met a live record of its key: the key was done before (Redis forgot it) or
    is being done right now by a request that committed first; roll back and replay."""


def _claim_parts() -> tuple[str, str, dict[str, TypeEngine[Any]]]:
    """Built once: the statement is the same for every write, only its parameters change (a
    per-request Core construct cost more CPU than the round trip it saves). (The audit row's
    INSERT as a CTE, the record's INSERT, the parameters' types.)"""
    record, audit = table_of(IdempotencyRecord), table_of(AuditLog)
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in _RECORD_COLUMNS)
    audit_row = f"""audit_row AS (
    INSERT INTO {audit.name} ({", ".join(_AUDIT_COLUMNS)})
    VALUES ({", ".join(f":a_{c}" for c in _AUDIT_COLUMNS)})
    RETURNING id
)"""
    claim = f"""
INSERT INTO {record.name} AS r ({", ".join(_RECORD_COLUMNS)})
VALUES ({", ".join(f":r_{c}" for c in _RECORD_COLUMNS)})
ON CONFLICT (scope, key) DO UPDATE SET {updates}, created_at = now()
WHERE r.expires_at <= now()
RETURNING r.id
"""
    types = {f"a_{c}": audit.c[c].type for c in _AUDIT_COLUMNS}
    types |= {f"r_{c}": record.c[c].type for c in _RECORD_COLUMNS}
    return audit_row, claim, types


_AUDIT_ROW, _CLAIM, _CLAIM_TYPES = _claim_parts()


def _key_done_before() -> Exception:
    return KeyDoneBefore()


def claim_last(record: IdempotencyRecord, audit: AuditLog) -> LastStatement:
    """The audit row and the record in one statement, run first at the commit point and sent
    with the COMMIT (``db.last.run_last(..., first=True)``), an expired record of the key being
    replaced. A live one refuses it with ``KeyDoneBefore`` before any other statement of the
    request runs (a reservation its first run's own effect would now refuse): roll back, then
    ``replay_claimed``."""
    params = {f"r_{c}": getattr(record, c) for c in _RECORD_COLUMNS}
    params |= {f"a_{c}": getattr(audit, c) for c in _AUDIT_COLUMNS}
    return LastStatement(_CLAIM, params, _key_done_before, with_=_AUDIT_ROW, types=_CLAIM_TYPES)


async def replay_claimed(session: AsyncSession, record: IdempotencyRecord) -> NoReturn:
    """After ``KeyDoneBefore`` and the rollback: the stored answer replayed (or refused); none
    live any more (it expired meanwhile) is a key still settling: 409 in use."""
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
