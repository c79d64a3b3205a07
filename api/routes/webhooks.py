"""Webhook endpoints of the calling project, their delivery log, and manual redelivery."""

from __future__ import annotations

import logging
import secrets
import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Self

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from api.callers import ProjectCaller
from api.deps import SessionDep
from api.envelope import PageQuery, fetch_page, page, resource, single
from api.errors import invalid_field
from api.idempotency import IdempotencyKey, write_context
from api.openapi import problems
from api.schemas.inputs import DEFAULT_OVERLAP_SECONDS, ExpirePrevious
from api.starts import ensure_webhook_pump
from api.typed import Attributes, Many, One, Shape
from core.config import Settings, WebhookSettings
from core.errors import DomainError, NotFound
from core.security import encrypt_secret, previous_secret_until
from core.time import iso
from db.models.events import EventType
from db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from webhooks.urls import UnsafeUrl, check_url

log = logging.getLogger("mccgw.webhooks")

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])

EventKind = EventType
MAX_ENDPOINTS = 10

_PROBLEMS = problems(422, 429, caller="project", subject="endpoint of this project")
_WRITE_PROBLEMS = _PROBLEMS | problems(
    409, s422="`validation-error` (e.g. a URL refused by the SSRF rule)"
)


class EndpointIn(BaseModel):
    url: str = Field(max_length=2000, examples=["https://game.example/hooks/mccgw"])
    events: list[EventKind] = Field(min_length=1, examples=[["mining.reward.confirmed"]])
    secret: str | None = Field(
        None,
        min_length=16,
        max_length=256,
        description="Signing secret; omitted = one is generated and shown once in the response",
    )
    idempotency_key: IdempotencyKey = None

    @field_validator("events")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))


class EndpointPatch(BaseModel):
    url: str | None = Field(None, max_length=2000)
    events: list[EventKind] | None = Field(None, min_length=1)
    secret: str | None = Field(None, min_length=16, max_length=256)
    enabled: bool | None = Field(
        None, description="true re-enables a disabled endpoint (its pending deliveries resume)"
    )
    idempotency_key: str | None = None

    @field_validator("events")
    @classmethod
    def _unique(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else list(dict.fromkeys(value))


class KeyOnly(BaseModel):
    idempotency_key: str | None = None


class EndpointAttributes(Attributes):
    url: str
    events: list[str]
    status: str = Field(description="active, disabled or deleted")
    failing_since: str | None
    disabled_at: str | None
    disabled_reason: str | None
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, row: WebhookEndpoint) -> Self:
        return cls.of_row(row, events=list(row.events))


class RegisteredEndpointAttributes(EndpointAttributes):
    secret: str | None = Field(
        None, description="Only when registered without one: the generated secret, shown once"
    )


class Attempt(Shape):
    attempt: int
    status_code: int | None
    latency_ms: int | None
    error: str | None
    at: str


class DeliveryAttributes(Attributes):
    event_id: str
    event_type: str
    endpoint_id: str
    status: str = Field(description="pending, succeeded or failed")
    attempts: int
    next_attempt_at: str | None
    last_status_code: int | None
    last_error: str | None
    created_at: str
    completed_at: str | None
    attempt_log: list[Attempt]

    @classmethod
    def of(cls, row: WebhookDelivery, log_rows: list[WebhookAttempt]) -> Self:
        return cls.of_row(
            row,
            next_attempt_at=iso(row.next_attempt_at) if row.status == "pending" else None,
            attempt_log=[Attempt.of_row(a, at=iso(a.created_at)) for a in log_rows],
        )


async def _checked_url(url: str, settings: WebhookSettings) -> str:
    try:
        await check_url(url, settings)
    except UnsafeUrl as exc:
        raise invalid_field("url", str(exc), f"Invalid request: url: {exc}") from exc
    return url


async def _endpoint(session: AsyncSession, project_id: int, endpoint_id: str) -> WebhookEndpoint:
    row = await session.get(WebhookEndpoint, endpoint_id, with_for_update=True)
    if row is None or row.project_id != project_id or row.status == "deleted":
        raise NotFound(f"Webhook endpoint {endpoint_id} does not exist")
    return row


def _live(project_id: int) -> ColumnElement[bool]:
    """The project's endpoints that still count (a deleted one only keeps its log)."""
    return (WebhookEndpoint.project_id == project_id) & (WebhookEndpoint.status != "deleted")


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


@router.post(
    "/register",
    status_code=201,
    response_model=One[RegisteredEndpointAttributes],
    responses=_WRITE_PROBLEMS,
)
async def register(payload: EndpointIn, project: ProjectCaller, request: Request) -> Any:
    """Register a webhook endpoint of the calling project (the secret is shown once)."""
    await _checked_url(payload.url, _settings(request).webhooks)
    settings = _settings(request)
    async with write_context(request, project, operation="webhooks.register") as ctx:
        count = await ctx.session.scalar(select(func.count()).where(_live(project.project_id)))
        if (count or 0) >= MAX_ENDPOINTS:
            raise DomainError(
                f"A project may register at most {MAX_ENDPOINTS} webhook endpoints",
                status=409,
                slug="invalid-state",
            )
        secret = payload.secret or "whsec_" + secrets.token_hex(32)
        row = WebhookEndpoint(
            id=f"whk_{uuid.uuid4().hex[:24]}",
            project_id=project.project_id,
            url=payload.url,
            events=payload.events,
            secret_encrypted=encrypt_secret(secret, settings.master_key, settings.master_key_id),
            status="active",
        )
        ctx.session.add(row)
        await ctx.session.flush()
        await ctx.session.refresh(row)
        attributes = RegisteredEndpointAttributes.of(row)
        if payload.secret is None:
            attributes.secret = secret
        response = ctx.respond(
            201,
            single(
                "webhook_endpoint",
                row.id,
                attributes,
                note="Verify X-Service-Signature (sha256=HMAC-SHA256 of the raw body with the "
                "secret); the secret is not shown again",
            ),
            sealed=payload.secret is None,  # a retry replays the generated secret, stored sealed
        )
    await ensure_webhook_pump(request)
    return response


@router.get("", response_model=Many[EndpointAttributes], responses=_PROBLEMS)
async def list_endpoints(
    project: ProjectCaller, session: SessionDep, request: Request, params: PageQuery
) -> dict[str, Any]:
    """The calling project's webhook endpoints (deleted ones are not listed)."""
    order = (WebhookEndpoint.created_at, WebhookEndpoint.id)
    rows, total = await fetch_page(
        session, WebhookEndpoint, _live(project.project_id), order, params
    )
    if total:
        await ensure_webhook_pump(request)
    items = [resource("webhook_endpoint", r.id, EndpointAttributes.of(r)) for r in rows]
    return page(items, total, params)


@router.get("/{endpoint_id}", response_model=One[EndpointAttributes], responses=_PROBLEMS)
async def get_endpoint(endpoint_id: str, project: ProjectCaller, session: SessionDep) -> Any:
    """One webhook endpoint of the calling project."""
    row = await _endpoint(session, project.project_id, endpoint_id)
    return single("webhook_endpoint", row.id, EndpointAttributes.of(row))


@router.patch("/{endpoint_id}", response_model=One[EndpointAttributes], responses=_WRITE_PROBLEMS)
async def update_endpoint(
    endpoint_id: str, payload: EndpointPatch, project: ProjectCaller, request: Request
) -> Any:
    """Change an endpoint's url, events or secret, or re-enable it."""
    if payload.url is not None:
        await _checked_url(payload.url, _settings(request).webhooks)
    settings = _settings(request)
    async with write_context(request, project, operation="webhooks.update") as ctx:
        row = await _endpoint(ctx.session, project.project_id, endpoint_id)
        if payload.url is not None:
            row.url = payload.url
        if payload.events is not None:
            row.events = list(payload.events)
        if payload.secret is not None:
            row.secret_encrypted = encrypt_secret(
                payload.secret, settings.master_key, settings.master_key_id
            )
        if payload.enabled is True and row.status != "active":
            row.status, row.failing_since = "active", None
            row.disabled_at, row.disabled_reason = None, None
        elif payload.enabled is False and row.status == "active":
            row.status, row.disabled_at = "disabled", datetime.now(UTC)
            row.disabled_reason = "disabled by the project"
        row.updated_at = datetime.now(UTC)
        await ctx.session.flush()
        response = ctx.respond(200, single("webhook_endpoint", row.id, EndpointAttributes.of(row)))
    await ensure_webhook_pump(request)
    return response


class SecretRollIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # How long deliveries are also signed with the current secret.
    expire_previous_in_seconds: ExpirePrevious = DEFAULT_OVERLAP_SECONDS
    idempotency_key: IdempotencyKey = None


class WebhookSecretAttributes(Attributes):
    """The answer of a webhook secret roll: the new signing secret, shown once."""

    endpoint_id: str
    secret: str = Field(description="The new signing secret, shown once")
    previous_expires_at: str | None
    rolled_at: str


@router.post(
    "/{endpoint_id}/secret/roll",
    response_model=One[WebhookSecretAttributes],
    responses=_WRITE_PROBLEMS,
)
async def roll_secret(
    endpoint_id: str, payload: SecretRollIn, project: ProjectCaller, request: Request
) -> Any:
    """Roll an endpoint's signing secret: the new one is shown once; until
    `expire_previous_in_seconds` have passed, deliveries carry both signatures
    (`X-Service-Signature: sha256=<new> sha256=<old>`)."""
    settings = _settings(request)
    async with write_context(request, project, operation="webhooks.secret.roll") as ctx:
        row = await _endpoint(ctx.session, project.project_id, endpoint_id)
        secret = "whsec_" + secrets.token_hex(32)
        now = datetime.now(UTC)
        expires = previous_secret_until(payload.expire_previous_in_seconds, True)
        if expires is not None:
            row.previous_secret_encrypted = row.secret_encrypted
        else:
            row.previous_secret_encrypted = None
        row.previous_secret_expires_at = expires
        row.secret_encrypted = encrypt_secret(secret, settings.master_key, settings.master_key_id)
        row.updated_at = now
        await ctx.session.flush()
        attrs = WebhookSecretAttributes(
            endpoint_id=row.id, secret=secret, previous_expires_at=iso(expires), rolled_at=iso(now)
        )
        return ctx.respond(200, single("webhook_secret", row.id, attrs), sealed=True)


@router.delete("/{endpoint_id}", response_model=One[EndpointAttributes], responses=_WRITE_PROBLEMS)
async def delete_endpoint(endpoint_id: str, project: ProjectCaller, request: Request) -> Any:
    """Delete an endpoint: nothing more is delivered to it (its log stays queryable)."""
    async with write_context(request, project, operation="webhooks.delete") as ctx:
        row = await _endpoint(ctx.session, project.project_id, endpoint_id)
        row.status = "deleted"
        row.updated_at = datetime.now(UTC)
        await ctx.session.flush()
        return ctx.respond(200, single("webhook_endpoint", row.id, EndpointAttributes.of(row)))


@router.get(
    "/{endpoint_id}/deliveries", response_model=Many[DeliveryAttributes], responses=_PROBLEMS
)
async def list_deliveries(
    endpoint_id: str,
    project: ProjectCaller,
    session: SessionDep,
    params: PageQuery,
    status: Annotated[Literal["pending", "succeeded", "failed"] | None, Query()] = None,
) -> dict[str, Any]:
    """Deliveries to one endpoint, newest first, each with its attempt log."""
    endpoint = await session.get(WebhookEndpoint, endpoint_id)
    if endpoint is None or endpoint.project_id != project.project_id:
        raise NotFound(f"Webhook endpoint {endpoint_id} does not exist")
    where = WebhookDelivery.endpoint_id == endpoint_id
    if status is not None:
        where = where & (WebhookDelivery.status == status)
    order = (WebhookDelivery.created_at.desc(), WebhookDelivery.id)
    rows, total = await fetch_page(session, WebhookDelivery, where, order, params)
    attempts: dict[str, list[WebhookAttempt]] = {}
    if rows:
        for a in await session.scalars(
            select(WebhookAttempt)
            .where(WebhookAttempt.delivery_id.in_([r.id for r in rows]))
            .order_by(WebhookAttempt.id)
        ):
            attempts.setdefault(a.delivery_id, []).append(a)
    items = [
        resource("webhook_delivery", r.id, DeliveryAttributes.of(r, attempts.get(r.id, [])))
        for r in rows
    ]
    return page(items, total, params)


@router.post(
    "/deliveries/{delivery_id}/redeliver",
    status_code=202,
    response_model=One[DeliveryAttributes],
    responses=_WRITE_PROBLEMS,
)
async def redeliver(delivery_id: str, project: ProjectCaller, request: Request) -> Any:
    """Send a delivery again now (same X-Service-Delivery id; the retry schedule restarts)."""
    async with write_context(request, project, operation="webhooks.redeliver") as ctx:
        row = await ctx.session.get(WebhookDelivery, delivery_id, with_for_update=True)
        if row is None or row.project_id != project.project_id:
            raise NotFound(f"Webhook delivery {delivery_id} does not exist")
        row.status, row.schedule_index, row.completed_at = "pending", 0, None
        row.next_attempt_at = datetime.now(UTC)
        await ctx.session.flush()
        response = ctx.respond(
            202, single("webhook_delivery", row.id, DeliveryAttributes.of(row, []))
        )
    await ensure_webhook_pump(request)
    return response
