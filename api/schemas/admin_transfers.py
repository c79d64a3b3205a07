"""Typed bodies of the operator endpoints on transfers (api/routes/admin_transfers.py); the
field order is the wire order."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class TransferAttrs(BaseModel):
    status: str
    transfer_type: str
    from_uid: str
    to_uid: str
    currency: str
    amount: str
    reference: dict[str, Any] | None
    requires_onchain: bool
    lock_id: str | None
    created_at: str | None


class HistoryItem(BaseModel):
    status: str
    reason: str | None
    at: str | None


class DetailedTransferAttrs(TransferAttrs):
    failure_reason: str | None
    tx_signature: str | None
    slot: int | None
    block_height: int | None
    updated_at: str | None
    finished_at: str | None
    history: list[HistoryItem]


class ChainWriteView(BaseModel):
    status: str
    signature: str | None
    attempt: int | None
    send_count: int | None
    last_valid_block_height: int | None
    confirmation_status: str | None


class StuckTransferAttrs(DetailedTransferAttrs):
    onchain_at: str | None
    chain_write: ChainWriteView | None


CancelledTransferAttrs = DetailedTransferAttrs


class RetriedWrite(BaseModel):
    status: str
    signature: str | None


class RetryAttrs(BaseModel):
    transfer_id: str
    status: str
    chain_write: RetriedWrite | None
    workflow_id: str | None
    workflow_restarted: bool


class DriftAttrs(BaseModel):
    run_id: str
    user_uid: str
    currency: str
    address: str | None
    chain_balance: str
    ledger_balance: str
    drift: str
    created_at: str | None
