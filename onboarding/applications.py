"""Application rules: wallet addresses, the approval's credentials, review, serialization.

The review steps (``begin_approval``, ``take_secret``, ``reject``) only flush: the caller (the
admin API route or the operator console) commits, then starts ``ApprovalWorkflow``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from solders.pubkey import Pubkey
from sqlalchemy.ext.asyncio import AsyncSession

from core.errors import InvalidState, NotFound
from core.security import (
    decrypt_secret,
    encrypt_secret,
    hash_api_secret,
    new_api_key,
    new_api_secret,
)
from db.models.onboarding import ProjectApplication


def check_wallet(value: str) -> str:
    """A Base58 chain address that decodes to 32 bytes (ValueError otherwise)."""
    value = value.strip()
    try:
        Pubkey.from_string(value)
    except ValueError as exc:
        raise ValueError("must be a Base58 chain address of 32 bytes") from exc
    return value


@dataclass(frozen=True)
class NewCredentials:
    api_key: str
    api_secret: str
    api_secret_hash: str
    api_secret_encrypted: str


def new_credentials(master_key: str, master_key_id: str) -> NewCredentials:
    secret = new_api_secret()
    return NewCredentials(
        api_key=new_api_key(),
        api_secret=secret,
        api_secret_hash=hash_api_secret(secret),
        api_secret_encrypted=encrypt_secret(secret, master_key, master_key_id),
    )


def application_attributes(row: ProjectApplication) -> dict[str, Any]:
    """Every stored field a client may see (never the secret nor its hash)."""
    return {
        "application_id": str(row.id),
        "project_name": row.project_name,
        "project_description": row.project_description,
        "developer_uid": row.developer_uid,
        "developer_email": row.developer_email,
        "company_name": row.company_name,
        "website_url": row.website_url,
        "mcc_wallet_address": row.mcc_wallet_address,
        "mcd_wallet_address": row.mcd_wallet_address,
        "status": row.status,
        "reviewed_by": row.reviewed_by,
        "reviewed_at": row.reviewed_at.isoformat() if row.reviewed_at else None,
        "rejection_reason": row.rejection_reason,
        "project_id": row.project_id,
        "api_key": row.api_key,
        "whitelist_pda": row.whitelist_pda,
        "whitelist_bump": row.whitelist_bump,
        "whitelist_tx": row.whitelist_tx,
        "created_at": row.created_at.isoformat(),
        "updated_at": row.updated_at.isoformat(),
    }


async def begin_approval(
    session: AsyncSession,
    application_id: uuid.UUID,
    admin_uid: str,
    master_key: str,
    master_key_id: str,
) -> ProjectApplication:
    """Lock the application; a pending one becomes ``approving`` with its credentials made
    (secret kept hashed and AES-GCM encrypted until it is shown once). Flush only.

    An application already ``approving`` (or ``approved`` with its secret not yet shown) is
    returned unchanged, so a repeated approve joins the running approval."""
    row = await session.get(ProjectApplication, application_id, with_for_update=True)
    if row is None:
        raise NotFound(f"Application {application_id} does not exist")
    if row.status in ("rejected", "suspended") or (
        row.status == "approved" and row.secret_delivered_at is not None
    ):
        raise InvalidState(f"Application {application_id} is {row.status}; it cannot be approved")
    if row.status == "pending":
        creds = new_credentials(master_key, master_key_id)
        row.status = "approving"
        row.reviewed_by = admin_uid
        row.api_key = creds.api_key
        row.api_secret_hash = creds.api_secret_hash
        row.api_secret_encrypted = creds.api_secret_encrypted
    await session.flush()
    return row


async def take_secret(
    session: AsyncSession, application_id: uuid.UUID, keys: dict[str, str]
) -> tuple[ProjectApplication, str]:
    """The approved application's api_secret, exactly once: the row is locked and its
    encrypted copy erased (flush only; the caller commits before showing it)."""
    row = await session.get(
        ProjectApplication, application_id, with_for_update=True, populate_existing=True
    )
    if row is None or row.status != "approved" or row.api_secret_encrypted is None:
        raise InvalidState(
            f"Application {application_id} is already approved; its secret was shown once"
        )
    secret = decrypt_secret(row.api_secret_encrypted, keys)
    row.api_secret_encrypted = None
    row.api_secret_hash = None
    row.secret_delivered_at = datetime.now(UTC)
    await session.flush()
    return row, secret


async def reject(
    session: AsyncSession, application_id: uuid.UUID, reason: str, admin_uid: str
) -> ProjectApplication:
    """Reject a pending application with a reason (flush only)."""
    row = await session.get(ProjectApplication, application_id, with_for_update=True)
    if row is None:
        raise NotFound(f"Application {application_id} does not exist")
    if row.status != "pending":
        raise InvalidState(f"Application {application_id} is {row.status}; it cannot be rejected")
    row.status = "rejected"
    row.rejection_reason = reason
    row.reviewed_by = admin_uid
    row.reviewed_at = datetime.now(UTC)
    await session.flush()
    return row
