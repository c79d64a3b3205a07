"""Webhook endpoints made by a service rather than by the project's own call: the endpoint a
project registration's ``webhook_url`` names (issue 34). Flush-only."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from core.security import encrypt_secret
from db.models.events import EVENT_TYPES
from db.models.webhooks import WebhookEndpoint


@dataclass(frozen=True)
class NewEndpoint:
    endpoint: WebhookEndpoint
    secret: str  # generated, in clear: shown once by the caller


def new_secret() -> str:
    return "whsec_" + secrets.token_hex(32)


async def create_endpoint(
    session: AsyncSession,
    project_id: int,
    url: str,
    *,
    master_key: str,
    master_key_id: str,
    events: list[str] | None = None,
) -> NewEndpoint:
    """An active endpoint of the project for ``events`` (None: every event kind), with a
    generated signing secret kept AES-GCM encrypted."""
    secret = new_secret()
    row = WebhookEndpoint(
        id=f"whk_{uuid.uuid4().hex[:24]}",
        project_id=project_id,
        url=url,
        events=list(EVENT_TYPES if events is None else events),
        secret_encrypted=encrypt_secret(secret, master_key, master_key_id),
        status="active",
    )
    session.add(row)
    await session.flush()
    return NewEndpoint(row, secret)
