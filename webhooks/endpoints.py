"""A project's webhook endpoints, flush-only: registration (the limit per project, the ``whk_``
id and the ``whsec_`` secret format, written once here), changes, the secret roll, deletion,
manual redelivery, and where a mining outcome is sent (``outcome_url``). The project's own
routes (``api/routes/webhooks.py``) and the administrator's project registration (its
``webhook_url``) both register through ``register``.

A receiver URL is checked (``checked_url``: the SSRF rule of ``webhooks.urls``) before the
transaction that stores it, so no connection is held while its host resolves."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, Select, bindparam, func, select
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.ext.asyncio import AsyncSession

from core.config import Settings, WebhookSettings
from core.errors import InvalidState, NotFound, Rejected
from core.security import encrypt_secret, previous_secret_until
from db.models.events import EVENT_TYPES
from db.models.webhooks import WebhookDelivery, WebhookEndpoint
from webhooks.urls import UnsafeUrl, check_url
from webhooks.urls import parse as parse_url

MAX_ENDPOINTS = 10  # live (not deleted) endpoints per project


@dataclass(frozen=True)
class MasterKey:
    """The key a signing secret is kept AES-GCM encrypted with (``Settings.master_key``)."""

    key: str
    key_id: str

    @classmethod
    def of(cls, settings: Settings) -> MasterKey:
        return cls(settings.master_key, settings.master_key_id)

    def seal(self, secret: str) -> str:
        return encrypt_secret(secret, self.key, self.key_id)


@dataclass(frozen=True)
class NewEndpoint:
    endpoint: WebhookEndpoint
    secret: str | None  # generated, in clear: shown once by the caller (None: the caller's own)


def new_secret() -> str:
    return "whsec_" + secrets.token_hex(32)


async def checked_url(
    url: str, settings: WebhookSettings, *, field: str = "url", resolve: bool = True
) -> str:
    """``url`` if it may receive webhooks (``webhooks.urls``; ``resolve``: every address its
    host resolves to as well), else a 422 naming the request's ``field``."""
    try:
        if resolve:
            await check_url(url, settings)
        else:
            parse_url(url, settings)
    except UnsafeUrl as exc:
        raise Rejected(
            f"Invalid request: {field}: {exc}",
            slug="validation-error",
            errors=[{"field": field, "message": str(exc)}],
        ) from exc
    return url


def live(project_id: int) -> ColumnElement[bool]:
    """The project's endpoints that still count (a deleted one only keeps its log)."""
    return (WebhookEndpoint.project_id == project_id) & (WebhookEndpoint.status != "deleted")


def listing(project_id: int) -> Select[WebhookEndpoint]:
    return select(WebhookEndpoint).where(live(project_id))


async def register(
    session: AsyncSession,
    project_id: int,
    url: str,
    events: Sequence[str] | None,
    secret: str | None = None,
    *,
    master_key: MasterKey,
) -> NewEndpoint:
    """An active endpoint of the project for ``events`` (None: every event kind), signed with
    ``secret`` or, without one, a generated secret (returned once). A project has at most
    MAX_ENDPOINTS live endpoints (409 ``invalid-state`` past it)."""
    count = await session.scalar(select(func.count()).where(live(project_id)))
    if (count or 0) >= MAX_ENDPOINTS:
        raise InvalidState(f"A project may register at most {MAX_ENDPOINTS} webhook endpoints")
    generated = None if secret is not None else new_secret()
    row = WebhookEndpoint(
        id=f"whk_{uuid.uuid4().hex[:24]}",
        project_id=project_id,
        url=url,
        events=list(EVENT_TYPES if events is None else events),
        secret_encrypted=master_key.seal(secret or generated or ""),
        status="active",
    )
    session.add(row)
    await session.flush()
    await session.refresh(row)
    return NewEndpoint(row, generated)


async def endpoint(
    session: AsyncSession,
    project_id: int,
    endpoint_id: str,
    *,
    for_update: bool = False,
    deleted_too: bool = False,
) -> WebhookEndpoint:
    """The project's endpoint (404 for another project's, and for a deleted one unless
    ``deleted_too``: its delivery log stays readable)."""
    row = await session.get(WebhookEndpoint, endpoint_id, with_for_update=for_update)
    if row is None or row.project_id != project_id or (row.status == "deleted" and not deleted_too):
        raise NotFound(f"Webhook endpoint {endpoint_id} does not exist")
    return row


async def update(
    session: AsyncSession,
    project_id: int,
    endpoint_id: str,
    *,
    url: str | None = None,
    events: Sequence[str] | None = None,
    secret: str | None = None,
    enabled: bool | None = None,
    master_key: MasterKey,
) -> WebhookEndpoint:
    """Change what is given; ``enabled`` true re-enables a disabled endpoint (its pending
    deliveries resume), false disables an active one."""
    row = await endpoint(session, project_id, endpoint_id, for_update=True)
    if url is not None:
        row.url = url
    if events is not None:
        row.events = list(events)
    if secret is not None:
        row.secret_encrypted = master_key.seal(secret)
    if enabled is True and row.status != "active":
        row.status, row.failing_since = "active", None
        row.disabled_at, row.disabled_reason = None, None
    elif enabled is False and row.status == "active":
        row.status, row.disabled_at = "disabled", datetime.now(UTC)
        row.disabled_reason = "disabled by the project"
    row.updated_at = datetime.now(UTC)
    await session.flush()
    return row


@dataclass(frozen=True)
class RolledSecret:
    endpoint: WebhookEndpoint
    secret: str  # in clear: shown once by the caller
    previous_expires_at: datetime | None
    rolled_at: datetime


async def roll_secret(
    session: AsyncSession,
    project_id: int,
    endpoint_id: str,
    expire_previous_in_seconds: int,
    *,
    master_key: MasterKey,
) -> RolledSecret:
    """A new generated signing secret; until ``expire_previous_in_seconds`` have passed,
    deliveries are signed with the current one too (0: it stops now)."""
    row = await endpoint(session, project_id, endpoint_id, for_update=True)
    secret, now = new_secret(), datetime.now(UTC)
    expires = previous_secret_until(expire_previous_in_seconds, True)
    row.previous_secret_encrypted = row.secret_encrypted if expires is not None else None
    row.previous_secret_expires_at = expires
    row.secret_encrypted = master_key.seal(secret)
    row.updated_at = now
    await session.flush()
    return RolledSecret(row, secret, expires, now)


async def delete(session: AsyncSession, project_id: int, endpoint_id: str) -> WebhookEndpoint:
    """Nothing more is delivered to the endpoint; its log stays queryable."""
    row = await endpoint(session, project_id, endpoint_id, for_update=True)
    row.status = "deleted"
    row.updated_at = datetime.now(UTC)
    await session.flush()
    return row


async def redeliver(session: AsyncSession, project_id: int, delivery_id: str) -> WebhookDelivery:
    """Send a delivery of the project again now: same delivery id, the retry schedule
    restarts."""
    row = await session.get(WebhookDelivery, delivery_id, with_for_update=True)
    if row is None or row.project_id != project_id:
        raise NotFound(f"Webhook delivery {delivery_id} does not exist")
    row.status, row.schedule_index, row.completed_at = "pending", 0, None
    row.next_attempt_at = datetime.now(UTC)
    await session.flush()
    return row


def _outcome_url(project_id: object, event: str) -> Select[str]:
    """The URL of the project's first active endpoint subscribed to ``event``."""
    return (
        select(WebhookEndpoint.url)
        .where(
            WebhookEndpoint.project_id == project_id,
            WebhookEndpoint.status == "active",
            WebhookEndpoint.events.contains([event]),
        )
        .order_by(WebhookEndpoint.created_at)
        .limit(1)
    )


async def outcome_url(session: AsyncSession, project_id: int, event: str) -> str | None:
    """Where the outcome ``event`` of the project's call is sent (None: no endpoint
    subscribes to it): what an accepted mining submission's answer names."""
    return await session.scalar(_outcome_url(project_id, event))


def outcome_url_sql(event: str, project_param: str = "project_id") -> str:
    """``outcome_url`` as SQL text for a hand-written statement (mining's one-statement accept):
    a scalar subquery over the bind parameter ``:project_param`` (the event is a literal).
    Compiled from the same query, so the two cannot drift apart."""
    compiled = _outcome_url(bindparam(project_param), event).compile(
        dialect=PGDialect(paramstyle="named")
    )
    sql = str(compiled)
    for name, value in compiled.params.items():
        if name == project_param:
            continue
        if isinstance(value, list):  # the events array
            literal = "ARRAY[" + ", ".join(_quote(v) for v in value) + "]::varchar[]"
        else:  # the status and the limit
            literal = _quote(value) if isinstance(value, str) else str(int(value))
        sql = sql.replace(f":{name}", literal)
    return f"({sql})"


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
