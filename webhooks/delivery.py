"""Webhook deliveries, the state: the outbox fanned out into one durable delivery per (event,
endpoint), due deliveries claimed for a lease, every attempt logged and each delivery moved on
by its retry schedule. The pump (webhooks/pump.py) drives them and sends.

Everything that matters is a row: a delivery is ``pending`` until a 2xx arrives (``succeeded``)
or its retry schedule is exhausted (``failed``); ``next_attempt_at`` is its durable timer. A
claimed delivery's ``next_attempt_at`` is pushed one lease ahead, so a pump that dies while a
request is in flight only delays that delivery by the lease: nothing is lost, and receivers
de-duplicate by event ``id`` (a crash may cause a second send of one delivery).

Signature: ``X-Service-Signature: sha256=<hex HMAC-SHA256(endpoint secret, raw body)>``. While a
rolled secret is in its overlap the header carries both signatures, space-separated (the new
secret's first), as Standard Webhooks allows: a receiver accepts the delivery if any matches.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    Integer,
    Interval,
    Select,
    and_,
    bindparam,
    func,
    insert,
    literal,
    select,
    text,
    true,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from core.config import WebhookSettings
from core.metrics import WEBHOOK_ATTEMPTS
from core.security import decrypt_secret
from db.last import autocommit
from db.models.events import Event
from db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from events.outbox import event_body
from webhooks.senders import SendResult

log = logging.getLogger("mccgw.webhooks")

FAN_OUT_BATCH = 500


def sign(secret: str, body: bytes) -> str:
    """The X-Service-Signature value of ``body``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signatures(secrets: list[str], body: bytes) -> str:
    """The X-Service-Signature value under each secret, space-separated."""
    return " ".join(sign(secret, body) for secret in secrets)


def encode_body(event: Event) -> bytes:
    """The raw body: compact JSON of ``{id, type, created_at, data}`` (same bytes every retry)."""
    return json.dumps(event_body(event), separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True)
class Claimed:
    delivery_id: str
    endpoint_id: str
    event_type: str
    url: str
    secret: str
    body: bytes
    schedule_index: int
    attempt: int  # the number of this attempt (1-based, across redeliveries)
    previous_secret: str | None = None  # a rolled secret still in its overlap


# When the earliest pending delivery of an active endpoint is due, in seconds from now.
_NEXT_DUE = (
    select(func.extract("epoch", func.min(WebhookDelivery.next_attempt_at) - func.now()))
    .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
    .where(WebhookDelivery.status == "pending", WebhookEndpoint.status == "active")
)


def _claim() -> Select[Any]:
    """``Deliveries.claim``'s statement, built once (issue 43: the pump claims after every
    fan-out; building the statement and its cache key cost more than sending it): up to
    ``:limit`` due deliveries of active endpoints, leased for ``:lease`` (their next attempt
    pushed out), and ``_NEXT_DUE``'s answer beside them (one row of NULLs when none is due)."""
    due = (
        select(WebhookDelivery.id)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(
            WebhookDelivery.status == "pending",
            WebhookDelivery.next_attempt_at <= func.now(),
            WebhookEndpoint.status == "active",
        )
        .order_by(WebhookDelivery.next_attempt_at)
        .limit(bindparam("limit", type_=Integer))
        .with_for_update(of=WebhookDelivery, skip_locked=True)
    )
    taken = (
        update(WebhookDelivery)
        .where(WebhookDelivery.id.in_(due.scalar_subquery()))
        .values(next_attempt_at=func.now() + bindparam("lease", type_=Interval))
        .returning(
            WebhookDelivery.id,
            WebhookDelivery.event_id,
            WebhookDelivery.endpoint_id,
            WebhookDelivery.schedule_index,
            WebhookDelivery.attempts,
        )
        .cte("taken")
    )
    one = select(literal(1).label("one")).subquery("one")
    return (
        select(*taken.c, _NEXT_DUE.scalar_subquery().label("next_due"))
        .select_from(one)
        .outerjoin(taken, true())
    )


_CLAIM = _claim()


class Deliveries:
    """Every endpoint's delivery rows; each method is one commit. Decrypted endpoint secrets
    are kept while the endpoint's stored secret stays the same."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        master_keys: dict[str, str],
        settings: WebhookSettings,
    ) -> None:
        self._sessions = sessions
        self._keys = master_keys
        self.settings = settings
        self._secrets: dict[str, tuple[str, str]] = {}
        # The last claim's answer to ``next_due`` when it took nothing (used once).
        self._next_due: float | None = None

    async def fan_out(self, limit: int = FAN_OUT_BATCH) -> int:
        """Turn undispatched events into deliveries; returns events handled. One statement
        (``_FAN_OUT``), committed by itself: the events taken (skipping those another pump
        holds), a delivery for each endpoint of the event's project that wants its type
        (existing ones kept), the events marked dispatched."""
        first = self.settings.retry_schedule[0]
        async with autocommit(self._sessions) as session:
            handled = await session.scalar(_FAN_OUT, {"limit": limit, "first": float(first)})
        return int(handled or 0)

    def _secret(self, endpoint_id: str, encrypted: str) -> str:
        cached = self._secrets.get(endpoint_id)
        if cached is not None and cached[0] == encrypted:
            return cached[1]
        secret = decrypt_secret(encrypted, self._keys)
        self._secrets[endpoint_id] = (encrypted, secret)
        return secret

    def _previous(self, endpoint: WebhookEndpoint) -> str | None:
        expires = endpoint.previous_secret_expires_at
        if endpoint.previous_secret_encrypted is None or expires is None:
            return None
        if expires <= datetime.now(UTC):
            return None
        return decrypt_secret(endpoint.previous_secret_encrypted, self._keys)

    async def claim(self, limit: int) -> list[Claimed]:
        """Take up to ``limit`` due deliveries of active endpoints for one lease (the UPDATE
        commits by itself; then their events and endpoints are read). When it takes none, the
        same statement says when the next one is due (``next_due``'s answer, kept for the
        pump's wait right after: issue 43, one statement fewer per idle round)."""
        self._next_due = None
        if limit <= 0:
            return []
        lease = timedelta(seconds=self.settings.lease_seconds)
        async with autocommit(self._sessions) as session:
            rows = (await session.execute(_CLAIM, {"limit": limit, "lease": lease})).all()
            taken = [tuple(r[:5]) for r in rows if r[0] is not None]
            if not taken:
                seconds = rows[0][5] if rows else None
                self._next_due = 3600.0 if seconds is None else max(0.0, float(seconds))
                return []
            events = {
                e.id: e
                for e in (
                    await session.scalars(select(Event).where(Event.id.in_({t[1] for t in taken})))
                ).all()
            }
            endpoints = {
                e.id: e
                for e in (
                    await session.scalars(
                        select(WebhookEndpoint).where(WebhookEndpoint.id.in_({t[2] for t in taken}))
                    )
                ).all()
            }
        claimed = []
        for delivery_id, event_id, endpoint_id, index, attempts in taken:
            event, endpoint = events[event_id], endpoints[endpoint_id]
            claimed.append(
                Claimed(
                    delivery_id=delivery_id,
                    endpoint_id=endpoint_id,
                    event_type=event.type,
                    url=endpoint.url,
                    secret=self._secret(endpoint.id, endpoint.secret_encrypted),
                    body=encode_body(event),
                    schedule_index=index,
                    attempt=attempts + 1,
                    previous_secret=self._previous(endpoint),
                )
            )
        return claimed

    async def record(self, results: list[tuple[Claimed, SendResult]]) -> None:
        """Log the attempts and move each delivery on (one commit)."""
        if not results:
            return
        schedule = self.settings.retry_schedule
        now = datetime.now(UTC)
        attempts: list[dict[str, Any]] = []
        changes: list[dict[str, Any]] = []
        ok_endpoints: set[str] = set()
        failed_endpoints: set[str] = set()
        for item, result in results:
            attempts.append(
                {
                    "delivery_id": item.delivery_id,
                    "endpoint_id": item.endpoint_id,
                    "attempt": item.attempt,
                    "status_code": result.status_code,
                    "latency_ms": result.latency_ms,
                    "error": result.error,
                }
            )
            change: dict[str, Any] = {
                "id": item.delivery_id,
                "attempts": item.attempt,
                "last_status_code": result.status_code,
                "last_error": result.error,
            }
            if result.ok:
                ok_endpoints.add(item.endpoint_id)
                change |= {"status": "succeeded", "completed_at": now, "next_attempt_at": now}
            else:
                failed_endpoints.add(item.endpoint_id)
                index = item.schedule_index + 1
                if index >= len(schedule):
                    change |= {"status": "failed", "completed_at": now, "next_attempt_at": now}
                else:
                    delay = timedelta(seconds=schedule[index])
                    change |= {"status": "pending", "completed_at": None}
                    change["next_attempt_at"] = now + delay
                change["schedule_index"] = index
            changes.append(change)
        outcomes = [c["status"] for c in changes]
        for outcome in ("succeeded", "pending", "failed"):
            if n := outcomes.count(outcome):
                WEBHOOK_ATTEMPTS.labels("retry" if outcome == "pending" else outcome).inc(n)
        disable_before = now - timedelta(seconds=self.settings.disable_after_seconds)
        async with self._sessions() as session:
            await session.execute(insert(WebhookAttempt), attempts)
            for keys in _group_by_keys(changes):
                await session.execute(update(WebhookDelivery), keys)
            failing = failed_endpoints - ok_endpoints
            if failing:
                await session.execute(
                    update(WebhookEndpoint)
                    .where(WebhookEndpoint.id.in_(failing), WebhookEndpoint.failing_since.is_(None))
                    .values(failing_since=now)
                )
                disabled = await session.scalars(
                    update(WebhookEndpoint)
                    .where(
                        WebhookEndpoint.id.in_(failing),
                        WebhookEndpoint.status == "active",
                        WebhookEndpoint.failing_since <= disable_before,
                    )
                    .values(
                        status="disabled",
                        disabled_at=now,
                        disabled_reason="failing for longer than "
                        f"{self.settings.disable_after_seconds:g} s",
                    )
                    .returning(WebhookEndpoint.id)
                )
                for endpoint_id in disabled:
                    log.warning("webhook endpoint %s disabled after failing", endpoint_id)
            if ok_endpoints:
                await session.execute(
                    update(WebhookEndpoint)
                    .where(
                        and_(
                            WebhookEndpoint.id.in_(ok_endpoints),
                            WebhookEndpoint.failing_since.is_not(None),
                        )
                    )
                    .values(failing_since=None)
                )
            await session.commit()

    async def next_due(self) -> float:
        """Seconds until the earliest pending delivery of an active endpoint is due (a retry,
        or a lease that runs out); a large number when there is none. The last ``claim``'s
        answer when it took none (once: a later call asks the database)."""
        if (known := self._next_due) is not None:
            self._next_due = None
            return known
        async with autocommit(self._sessions) as session:
            seconds = await session.scalar(_NEXT_DUE)
        return 3600.0 if seconds is None else max(0.0, float(seconds))

    async def pending(self) -> int:
        """The pending deliveries (the pump's backlog)."""
        async with autocommit(self._sessions) as session:
            pending = await session.scalar(
                select(func.count())
                .select_from(WebhookDelivery)
                .where(WebhookDelivery.status == "pending")
            )
        return pending or 0


# The fan-out in one statement: the events taken (another pump's skipped), the deliveries of
# each endpoint (not deleted) of the event's project that wants its type, the events marked.
_FAN_OUT = text(
    """
WITH ev AS (
    SELECT id, project_id, type FROM events
    WHERE dispatched_at IS NULL ORDER BY created_at LIMIT :limit FOR UPDATE SKIP LOCKED
), fanned AS (
    INSERT INTO webhook_deliveries
        (id, event_id, endpoint_id, project_id, event_type, next_attempt_at)
    SELECT 'dlv_' || left(replace(gen_random_uuid()::text, '-', ''), 24), ev.id, ep.id,
           ev.project_id, ev.type, now() + make_interval(secs => :first)
    FROM ev JOIN webhook_endpoints ep
      ON ep.project_id = ev.project_id AND ep.status <> 'deleted' AND ev.type = ANY (ep.events)
    ON CONFLICT (event_id, endpoint_id) DO NOTHING
), marked AS (
    UPDATE events SET dispatched_at = now() FROM ev WHERE events.id = ev.id
)
SELECT count(*) FROM ev
"""
)


def _group_by_keys(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Bulk UPDATE by primary key needs the same keys in every row of one call."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(sorted(row)), []).append(row)
    return list(groups.values())
