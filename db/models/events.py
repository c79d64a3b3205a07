"""The event outbox: one row per event, written in the same transaction as the state change
that caused it, so an event exists if and only if its change committed."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args

from sqlalchemy import Index, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column
from typing_extensions import TypeAliasType

from db.base import Base, CreatedAt

# One list for the outbox's check and the webhook routes' accepted subscriptions; a named
# alias, so the OpenAPI document (and the SDK) state it once as the `EventType` component.
EventType = TypeAliasType(
    "EventType",
    Literal[
        "mining.activity.verified",
        "mining.reward.confirmed",
        "funds.locked",
        "funds.unlocked",
        "transfer.completed",
        "transfer.failed",
        "funds.deposited",  # tokens.deposits: an outside transfer into a custody account
        # engine.withdrawals: a user's withdrawal to their own wallet, to the project whose
        # client started it
        "withdrawal.requested",
        "withdrawal.completed",
        "withdrawal.failed",
        "withdrawal.cancelled",
    ],
)
EVENT_TYPES: tuple[str, ...] = get_args(EventType.__value__)


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (
        Index("ix_events_undispatched", "created_at", postgresql_where="dispatched_at IS NULL"),
        Index("ix_events_project", "project_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    # The project the event belongs to (whose webhooks receive it).
    project_id: Mapped[int]
    type: Mapped[str] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[CreatedAt]
    # Set once the event has been handed to delivery (fanned out to the project's endpoints).
    dispatched_at: Mapped[datetime | None]
