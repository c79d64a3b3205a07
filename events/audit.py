"""The audit trail, with secrets redacted by key name: the row of every transactional call
(``new_audit``, written by the API's unit of work and marked when its workflow ends) and the row
of a person's action outside one (``audit_action``: an administrator's, a project owner's, or a
user's own)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import CTE, bindparam, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.base import table_of
from db.models.access import AUDIT_STATUSES, AuditLog

REDACTED = "[redacted]"
_SECRET_NAMES = {
    "api_secret",
    "api_key",
    "x_api_key",
    "password",
    "client_secret",
    "secret",
    "token",
    "authorization",
    "signature",
    "x_signature",
    "x_project_signature",
    "private_key",
}


def _is_secret(name: str) -> bool:
    key = name.lower().replace("-", "_")
    return (
        key in _SECRET_NAMES
        or key.endswith(("_secret", "_token", "_password"))
        or "password" in key
    )


def redact(value: Any) -> Any:
    """A copy of ``value`` where every member named like a secret is replaced."""
    if isinstance(value, dict):
        return {k: REDACTED if _is_secret(str(k)) else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def new_audit(
    *,
    actor: str,
    operation: str,
    project_id: int | None,
    user_uid: str | None,
    request_body: Any,
    idempotency_key: str | None,
    client_ip: str | None,
    request_id: str | None,
    status: str = "pending",
) -> AuditLog:
    return AuditLog(
        id=uuid.uuid4(),
        actor=actor,
        operation=operation,
        project_id=project_id,
        user_uid=user_uid,
        request_body=redact(request_body),
        status=status,
        idempotency_key=idempotency_key,
        client_ip=client_ip,
        request_id=request_id,
    )


@dataclass(frozen=True)
class Actor:
    """Who acts, from where, as what (``admin``, ``owner``, ``user``): what each audit row of
    a person's action records. ``kind`` names who ``uid`` is: a user of the gateway, or an
    ``operator`` at the command line (``mccgw admin ...``: the OS user)."""

    uid: str
    client_ip: str | None
    request_id: str | None
    role: str = "admin"
    kind: str = "user"


def audit_action(
    session: AsyncSession,
    actor: Actor,
    operation: str,
    project_id: int | None,
    user_uid: str | None,
    body: dict[str, Any],
    response: dict[str, Any],
    status: str = "success",
) -> None:
    """The audit row of one action of ``actor`` (added; the caller commits). A success is
    recorded with status code 200, a refusal (``failed``) with the ``status`` its response
    names."""
    row = new_audit(
        actor=f"{actor.kind}:{actor.uid}",
        operation=operation,
        project_id=project_id,
        user_uid=user_uid,
        request_body=body,
        idempotency_key=None,
        client_ip=actor.client_ip,
        request_id=actor.request_id,
        status=status,
    )
    row.status_code = 200 if status == "success" else response.get("status")
    row.response_body = redact(response)
    session.add(row)


async def mark_audit(
    db: AsyncSession | async_sessionmaker[AsyncSession],
    audit_id: uuid.UUID | str,
    status: str,
    response: Any | None = None,
) -> None:
    """Record how a transactional call ended (e.g. when its workflow finishes).

    With a session the caller commits; with a session maker this commits on its own.
    """
    if status not in AUDIT_STATUSES:
        raise ValueError(f"audit status must be one of {AUDIT_STATUSES}")
    values: dict[str, Any] = {"status": status}
    if response is not None:
        values["response_body"] = redact(response)
    statement = update(AuditLog).where(AuditLog.id == uuid.UUID(str(audit_id))).values(**values)
    if isinstance(db, AsyncSession):
        await db.execute(statement)
        return
    async with db() as session:
        await session.execute(statement)
        await session.commit()


async def mark_audits(
    session: AsyncSession, outcomes: Sequence[tuple[uuid.UUID | str, str, Any]]
) -> None:
    """``mark_audit`` for many calls at once, ``outcomes`` = ``[(audit_id, status, response)]``:
    one statement sent with a parameter list (the caller commits)."""
    if not outcomes:
        return
    for _, status, _ in outcomes:
        if status not in AUDIT_STATUSES:
            raise ValueError(f"audit status must be one of {AUDIT_STATUSES}")
    table = table_of(AuditLog)
    await session.execute(
        update(table)
        .where(table.c.id == bindparam("audit_id"))
        .values(status=bindparam("new_status"), response_body=bindparam("body")),
        [
            {"audit_id": uuid.UUID(str(a)), "new_status": s, "body": redact(r)}
            for a, s, r in outcomes
        ],
    )


def mark_audits_with(rows: CTE, status: str) -> CTE:
    """``mark_audits`` inside the statement that moves ``rows`` (a data-modifying CTE
    returning ``id`` and ``audit_id``): the audit row of each row it moved gets ``status`` and
    its response. Add the returned CTE to that statement (``add_cte``): no statement of its
    own (issue 43). The statement is built once, for every execution; each passes the
    responses by row id as ``audits_marked_with(rows.name, responses)`` (redacted there)."""
    if status not in AUDIT_STATUSES:
        raise ValueError(f"audit status must be one of {AUDIT_STATUSES}")
    table = table_of(AuditLog)
    by_id = bindparam(f"{rows.name}_audit_bodies", type_=JSONB)
    return (
        update(table)
        .where(table.c.id == rows.c.audit_id)
        .values(status=status, response_body=by_id.op("->", return_type=JSONB)(rows.c.id))
        .cte(f"{rows.name}_audits")
    )


def audits_marked_with(rows: str, responses: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a ``mark_audits_with(rows, status)`` built once: each moved
    row's response by row id, redacted."""
    return {f"{rows}_audit_bodies": {k: redact(v) for k, v in responses.items()}}
