"""Webhook endpoints of projects, one durable delivery per (event, endpoint), and the log of
every delivery attempt."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, CreatedAt, IdentityPk, TimestampMixin

ENDPOINT_STATUSES = ("active", "disabled", "deleted")
DELIVERY_STATUSES = ("pending", "succeeded", "failed")


class WebhookEndpoint(TimestampMixin, Base):
    __tablename__ = "webhook_endpoints"
    __table_args__ = (
        CheckConstraint(f"status IN {ENDPOINT_STATUSES!r}", name="status"),
        Index("ix_webhook_endpoints_project", "project_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    project_id: Mapped[int]
    url: Mapped[str] = mapped_column(String(2000))
    events: Mapped[list[str]] = mapped_column(ARRAY(String(64)))
    # AES-GCM ciphertext of the signing secret (core.security.encrypt_secret).
    secret_encrypted: Mapped[str] = mapped_column(String(512))
    # A rolled signing secret: deliveries are signed with both until this instant.
    previous_secret_encrypted: Mapped[str | None] = mapped_column(String(512))
    previous_secret_expires_at: Mapped[datetime | None]
    status: Mapped[str] = mapped_column(String(16), default="active", server_default="active")
    # First failure of the current failing streak; cleared by any successful delivery.
    failing_since: Mapped[datetime | None]
    disabled_at: Mapped[datetime | None]
    disabled_reason: Mapped[str | None] = mapped_column(String(200))


class WebhookDelivery(Base):
    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        UniqueConstraint("event_id", "endpoint_id", name="uq_webhook_deliveries_event_endpoint"),
        CheckConstraint(f"status IN {DELIVERY_STATUSES!r}", name="status"),
        Index(
            "ix_webhook_deliveries_due",
            "next_attempt_at",
            postgresql_where="status = 'pending'",
        ),
        Index("ix_webhook_deliveries_endpoint", "endpoint_id", "created_at"),
    )

    # Sent as X-Service-Delivery; stable across every retry and manual redelivery.
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    event_id: Mapped[str] = mapped_column(String(64), ForeignKey("events.id"))
    endpoint_id: Mapped[str] = mapped_column(String(40), ForeignKey("webhook_endpoints.id"))
    project_id: Mapped[int]
    event_type: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="pending", server_default="pending")
    # Position in the retry schedule (reset by a manual redelivery) and attempts ever made.
    schedule_index: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    next_attempt_at: Mapped[CreatedAt]
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[CreatedAt]
    completed_at: Mapped[datetime | None]


class WebhookAttempt(Base):
    __tablename__ = "webhook_attempts"
    __table_args__ = (Index("ix_webhook_attempts_delivery", "delivery_id", "attempt"),)

    id: Mapped[IdentityPk]
    delivery_id: Mapped[str] = mapped_column(String(40), ForeignKey("webhook_deliveries.id"))
    endpoint_id: Mapped[str] = mapped_column(String(40))
    attempt: Mapped[int] = mapped_column(Integer)
    status_code: Mapped[int | None] = mapped_column(Integer)
    latency_ms: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[CreatedAt]
