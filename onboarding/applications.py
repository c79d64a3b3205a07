"""Application rules: wallet addresses, the approval's credentials, serialization."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solders.pubkey import Pubkey

from core.security import encrypt_secret, hash_api_secret, new_api_key, new_api_secret
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
