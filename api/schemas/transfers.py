"""A transfer as the API shows it (api.routes.transfers and the operator endpoints of
api.routes.admin_transfers), and the operators' retry and drift answers. The field order is the
wire order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from pydantic import Field

from api.common import Currency
from api.typed import Attributes, Shape
from chain.decimals import TokenDecimals
from core.time import iso
from db.models.engine import ReconciliationDrift, Transfer, TransferState


class TransferStep(Shape):
    status: str
    reason: str | None
    at: str


class TransferAttributes(Attributes):
    status: str
    transfer_type: str
    from_uid: str
    to_uid: str
    currency: Currency
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

    @classmethod
    def of(
        cls, t: Transfer, decimals: TokenDecimals, history: Sequence[TransferState] | None = None
    ) -> Self:
        """The accepted transfer; with its ``history``, the settlement details too."""
        shown = cls(
            status=t.status,
            transfer_type=t.transfer_type,
            from_uid=t.from_uid,
            to_uid=t.to_uid,
            currency=t.currency,
            amount=decimals.format(t.amount, t.currency),
            reference=t.reference,
            requires_onchain=t.requires_onchain,
            lock_id=t.lock_id,
            created_at=iso(t.created_at),
        )
        if history is not None:
            shown.failure_reason = t.failure_reason
            shown.tx_signature = t.signature
            shown.slot = t.slot
            shown.block_height = t.block_height
            shown.updated_at = iso(t.updated_at)
            shown.finished_at = iso(t.finished_at)
            shown.history = [
                TransferStep(status=h.status, reason=h.reason, at=iso(h.created_at))
                for h in history
            ]
        return shown


class ChainWriteView(Shape):
    status: str
    signature: str | None
    attempt: int | None
    send_count: int | None
    last_valid_block_height: int | None
    confirmation_status: str | None


class StuckTransferAttributes(TransferAttributes):
    onchain_at: str | None = None
    chain_write: ChainWriteView | None = None

    @classmethod
    def stuck(
        cls, t: Transfer, decimals: TokenDecimals, chain_write: dict[str, Any] | None
    ) -> Self:
        shown = cls.of(t, decimals, [])
        shown.onchain_at = iso(t.onchain_at)
        shown.chain_write = None if chain_write is None else ChainWriteView(**chain_write)
        return shown


class RetriedWrite(Shape):
    status: str
    signature: str | None


class RetryAttributes(Attributes):
    transfer_id: str
    status: str
    chain_write: RetriedWrite | None
    workflow_id: str | None
    workflow_restarted: bool


class DriftAttributes(Attributes):
    run_id: str
    user_uid: str
    currency: str
    address: str | None
    chain_balance: str
    ledger_balance: str
    drift: str
    created_at: str

    @classmethod
    def of(cls, d: ReconciliationDrift) -> Self:
        balances = ("chain_balance", "ledger_balance", "drift")
        return cls.of_row(d, **{name: str(getattr(d, name)) for name in balances})
