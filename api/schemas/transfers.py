"""A transfer as the API shows it (api.routes.transfers, api.routes.admin_transfers)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from api.typed import Attributes
from chain.decimals import TokenDecimals
from core.time import iso
from db.models.engine import Transfer


class TransferStep(BaseModel):
    status: str
    reason: str | None
    at: str


class TransferAttributes(Attributes):
    status: str
    transfer_type: str
    from_uid: str
    to_uid: str
    currency: Literal["MCC", "MCD"]
    amount: str = Field(description="Decimal string")
    reference: dict[str, Any]
    requires_onchain: bool
    lock_id: str | None
    created_at: str
    # Read and cancel answers carry the settlement details and the state history too.
    failure_reason: str | None = None
    tx_signature: str | None = None
    slot: int | None = None
    block_height: int | None = None
    updated_at: str | None = None
    finished_at: str | None = None
    history: list[TransferStep] | None = None


def transfer_attributes(
    t: Transfer, decimals_: TokenDecimals, history: list[Any] | None = None
) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "status": t.status,
        "transfer_type": t.transfer_type,
        "from_uid": t.from_uid,
        "to_uid": t.to_uid,
        "currency": t.currency,
        "amount": decimals_.format(t.amount, t.currency),
        "reference": t.reference,
        "requires_onchain": t.requires_onchain,
        "lock_id": t.lock_id,
        "created_at": iso(t.created_at),
    }
    if history is not None:
        attributes |= {
            "failure_reason": t.failure_reason,
            "tx_signature": t.signature,
            "slot": t.slot,
            "block_height": t.block_height,
            "updated_at": iso(t.updated_at),
            "finished_at": iso(t.finished_at),
            "history": [
                {"status": h.status, "reason": h.reason, "at": iso(h.created_at)} for h in history
            ],
        }
    return attributes
