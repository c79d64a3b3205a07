"""Exactly-once writes: idempotency, audit and the single commit, in one context manager.

    async with write_context(request, principal, operation="funds.lock", user_uid=uid) as ctx:
        ...  # the effect, through ctx.session (flush only, never commit)
        return ctx.respond(201, single("fund_lock", ...))

- The key is the body's ``idempotency_key`` (or the ``Idempotency-Key`` header), scoped per
  project (per user for user-token writes), kept 24 h.
- A stored response for (scope, key) with the same request hash is replayed byte for byte with
  ``Idempotent-Replayed: true``; another body gives 409 ``idempotency-key-reused``.
- One Redis script either finds the finished key (replayed from Redis) or takes the in-flight
  lock (SET NX; otherwise 409 ``idempotency-key-in-use``): ``api.idempotency_redis``. The
  unique (scope, key) row, written in the effect's transaction, is the final arbiter
  (``api.idempotency_store``): if Redis lost the marker, the repeated effect is rolled back and
  the stored response is replayed. Side effects outside PostgreSQL must be keyed too
  (``ctx.workflow_id``).
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
from typing import Annotated, Any, NoReturn

from fastapi import Request
from fastapi.responses import Response
from pydantic import Field
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from access.ratelimit import client_ip
from api.auth.principal import Principal, ProjectPrincipal
from api.auth.project import parsed_body, request_target
from api.auth.signature import canonical_body
from api.errors import answered_status, invalid_field
from api.idempotency_redis import KeyLock
from api.idempotency_store import (
    IDEMPOTENCY_TTL,
    IdempotentReplay,
    KeyDoneBefore,
    claim_last,
    in_use,
    new_record,
    replay_claimed,
    replay_or_conflict,
    replay_stored,
)
from core.errors import DomainError
from core.logging import request_id_var
from core.workflow_ids import request_workflow_id
from db.last import commit_last, run_last
from db.models.access import AuditLog
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

    async def replay_if_done(self) -> NoReturn:
        """The record derived from this key exists already (a transfer, a lock): answer as the
        key's first run did, or 409 (``api.idempotency_store.replay_stored``)."""
        await replay_stored(self.session, self.scope, self.key, self.request_hash)


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
    key = _key(request, body, required=not key_optional)
    facts = _audit_facts(request, principal, operation, user_uid, body, key)
    sessions: async_sessionmaker[AsyncSession] = request.app.state.session_maker
    if key is None:
        async with _unkeyed(sessions, principal, facts) as ctx:
            yield ctx
        return

    request_hash = _request_hash(request, body)
    lock = KeyLock(request.app.state.redis, principal.rate_key, key)
    # Redis first: the key's finished answer, or the in-flight lock (another request's: 409).
    done, locked = await lock.begin()
    if done is not None:
        raise replay_or_conflict(done, request_hash)
    if not locked:
        raise in_use()
    committed = False
    try:
        async with sessions() as session:
            ctx = WriteContext(
                session, principal, operation, key, principal.rate_key, body, user_uid,
                new_audit(**facts), request_hash,
            )  # fmt: skip
            async with _audited_on_failure(session, facts):
                yield ctx
            answer = _answered(ctx)
            record = new_record(ctx.scope, key, request_hash, answer, request.app.state.settings)
            # The audit row and the record in one statement, with the final status, first at
            # the commit point; a key done before (Redis forgot) refuses it, and this run is
            # rolled back and the stored answer replayed.
            run_last(session, claim_last(record, ctx.audit), first=True)
            try:
                async with _audited_on_failure(session, facts):
                    # The claim, then the statements on rows every accept shares (db.last), and
                    # the COMMIT, in one round trip: those rows' locks are held for them and the
                    # commit only. A refusal here undoes the claim with everything else.
                    await commit_last(session)
            except KeyDoneBefore:
                await replay_claimed(session, record)
            committed = True
        await lock.finish(record, int(IDEMPOTENCY_TTL.total_seconds()))
    finally:
        if not committed:
            await lock.release()


@asynccontextmanager
async def _unkeyed(
    sessions: async_sessionmaker[AsyncSession], principal: Principal, facts: dict[str, Any]
) -> AsyncIterator[WriteContext]:
    """A keyless naturally idempotent write: the effect and its audit row, one commit."""
    async with sessions() as session:
        ctx = WriteContext(
            session, principal, facts["operation"], "", principal.rate_key,
            facts["request_body"], facts["user_uid"], new_audit(**facts),
        )  # fmt: skip
        async with _audited_on_failure(session, facts):
            yield ctx
            _answered(ctx)
            session.add(ctx.audit)
            await commit_last(session)


def _audit_facts(
    request: Request,
    principal: Principal,
    operation: str,
    user_uid: str | None,
    body: Any,
    key: str | None,
) -> dict[str, Any]:
    """The audit row's facts of a write, keyed or not: its success row and, when it fails, its
    failure row (``_audited_on_failure``) are both made from them."""
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


@asynccontextmanager
async def _audited_on_failure(session: AsyncSession, facts: dict[str, Any]) -> AsyncIterator[None]:
    """A failure inside rolls the transaction back, then records the call as ``failed`` (in a
    transaction of its own) and is raised as it is."""
    try:
        yield
    except (IdempotentReplay, KeyDoneBefore):
        await session.rollback()  # the key ran before: its first run's audit row stands
        raise
    except Exception as exc:
        await session.rollback()
        await _audit_failure(session, facts, exc)
        raise


async def _audit_failure(session: AsyncSession, facts: dict[str, Any], exc: Exception) -> None:
    try:
        audit = new_audit(status="failed", **facts)
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
