"""Webhook endpoints of the calling project, their delivery log, and manual redelivery."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal, Self

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field, field_validator
from sqlalchemy import select

from api.callers import ProjectCaller
from api.deps import SessionDep
from api.envelope import PageQuery, page, resource, single
from api.idempotency import IdempotencyKey, write_context
from api.openapi import problems
from api.schemas.inputs import KeyedSecretRoll
from api.starts import ensure_webhook_pump
from api.typed import Attributes, Many, One, Shape
from core.config import Settings
from core.time import iso
from db.models.events import EventType
from db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from db.paging import page_of
from webhooks import endpoints

log = logging.getLogger("mccgw.webhooks")

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])

EventKind = EventType

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


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _master_key(request: Request) -> endpoints.MasterKey:
    return endpoints.MasterKey.of(_settings(request))


@router.post(
    "/register",
    status_code=201,
    response_model=One[RegisteredEndpointAttributes],
    responses=_WRITE_PROBLEMS,
)
async def register(payload: EndpointIn, project: ProjectCaller, request: Request) -> Any:
    """Register a webhook endpoint of the calling project (the secret is shown once)."""
    await endpoints.checked_url(payload.url, _settings(request).webhooks)
    async with write_context(request, project, operation="webhooks.register") as ctx:
        made = await endpoints.register(
            ctx.session, project.project_id, payload.url, payload.events, payload.secret,
            master_key=_master_key(request),
        )  # fmt: skip
        attributes = RegisteredEndpointAttributes.of(made.endpoint)
        if made.secret is not None:
            attributes.secret = made.secret
        response = ctx.respond(
            201,
            single(
                "webhook_endpoint",
                made.endpoint.id,
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
    rows, total = await page_of(session, endpoints.listing(project.project_id), order, params)
    if total:
        await ensure_webhook_pump(request)
    items = [resource("webhook_endpoint", r.id, EndpointAttributes.of(r)) for r in rows]
    return page(items, total, params)


@router.get("/{endpoint_id}", response_model=One[EndpointAttributes], responses=_PROBLEMS)
async def get_endpoint(endpoint_id: str, project: ProjectCaller, session: SessionDep) -> Any:
    """One webhook endpoint of the calling project."""
    row = await endpoints.endpoint(session, project.project_id, endpoint_id)
    return single("webhook_endpoint", row.id, EndpointAttributes.of(row))


@router.patch("/{endpoint_id}", response_model=One[EndpointAttributes], responses=_WRITE_PROBLEMS)
async def update_endpoint(
    endpoint_id: str, payload: EndpointPatch, project: ProjectCaller, request: Request
) -> Any:
    """Change an endpoint's url, events or secret, or re-enable it."""
    if payload.url is not None:
        await endpoints.checked_url(payload.url, _settings(request).webhooks)
    async with write_context(request, project, operation="webhooks.update") as ctx:
        row = await endpoints.update(
            ctx.session, project.project_id, endpoint_id,
            url=payload.url, events=payload.events, secret=payload.secret,
            enabled=payload.enabled, master_key=_master_key(request),
        )  # fmt: skip
        response = ctx.respond(200, single("webhook_endpoint", row.id, EndpointAttributes.of(row)))
    await ensure_webhook_pump(request)
    return response


class SecretRollIn(KeyedSecretRoll):
    pass  # expire_previous_in_seconds: how long deliveries are also signed with the current one


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
    async with write_context(request, project, operation="webhooks.secret.roll") as ctx:
        rolled = await endpoints.roll_secret(
            ctx.session, project.project_id, endpoint_id, payload.expire_previous_in_seconds,
            master_key=_master_key(request),
        )  # fmt: skip
        attrs = WebhookSecretAttributes(
            endpoint_id=rolled.endpoint.id,
            secret=rolled.secret,
            previous_expires_at=iso(rolled.previous_expires_at),
            rolled_at=iso(rolled.rolled_at),
        )
        return ctx.respond(200, single("webhook_secret", rolled.endpoint.id, attrs), sealed=True)


@router.delete("/{endpoint_id}", response_model=One[EndpointAttributes], responses=_WRITE_PROBLEMS)
async def delete_endpoint(endpoint_id: str, project: ProjectCaller, request: Request) -> Any:
    """Delete an endpoint: nothing more is delivered to it (its log stays queryable)."""
    async with write_context(request, project, operation="webhooks.delete") as ctx:
        row = await endpoints.delete(ctx.session, project.project_id, endpoint_id)
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
    await endpoints.endpoint(session, project.project_id, endpoint_id, deleted_too=True)
    where = WebhookDelivery.endpoint_id == endpoint_id
    if status is not None:
        where = where & (WebhookDelivery.status == status)
    order = (WebhookDelivery.created_at.desc(), WebhookDelivery.id)
    rows, total = await page_of(session, select(WebhookDelivery).where(where), order, params)
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
        row = await endpoints.redeliver(ctx.session, project.project_id, delivery_id)
        response = ctx.respond(
            202, single("webhook_delivery", row.id, DeliveryAttributes.of(row, []))
        )
    await ensure_webhook_pump(request)
    return response
