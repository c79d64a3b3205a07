"""A withdrawal as the API shows it: to its user (api.routes.withdrawals) and to administrators
(api.routes.admin_withdrawals and the console), who also see the decisions on it and its chain
write. The field order is the wire order."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Self

from pydantic import Field

from api.common import Currency
from api.schemas.transfers import ChainWriteView, RetriedWrite
from api.typed import Attributes, Shape
from chain.decimals import TokenDecimals
from core.time import iso
from db.models.withdrawals import (
    Withdrawal,
    WithdrawalBreaker,
    WithdrawalDecision,
    WithdrawalState,
)
from engine.withdrawals import waits


class WithdrawalStep(Shape):
    status: str
    reason: str | None
    at: str


class Decision(Shape):
    admin_uid: str
    decision: str
    reason: str
    at: str


class WithdrawalAttributes(Attributes):
    status: str = Field(
        description="pending (waiting or about to be sent) | pending_onchain (being written; "
        "no cancel) | completed | failed | cancelled | rejected"
    )
    user_uid: str
    currency: Currency
    amount: str = Field(description="Decimal string")
    wallet_address: str = Field(description="The profile's wallet when it was made")
    destination: str = Field(description="That wallet's associated token account for the mint")
    project_id: int | None = Field(description="The project whose app asked (null: the gateway)")
    waiting_for: list[str] = Field(description="What a pending withdrawal still waits for")
    approvals_required: int
    approvals: int
    cooling_off_until: str | None
    wait_deadline: str = Field(description="Still waiting then, it is cancelled")
    failure_reason: str | None
    tx_signature: str | None
    slot: int | None
    block_height: int | None
    created_at: str
    updated_at: str
    finished_at: str | None
    # A single withdrawal's answer carries its history; an administrator's, the decisions on it
    # and its chain write too.
    history: list[WithdrawalStep] | None = None
    decisions: list[Decision] | None = None
    chain_write: ChainWriteView | None = None

    @classmethod
    def of(
        cls,
        w: Withdrawal,
        decimals: TokenDecimals,
        approvals: int,
        history: Sequence[WithdrawalState] | None = None,
    ) -> Self:
        pending = w.status == "pending"
        shown = cls.of_row(
            w,
            amount=decimals.format(w.amount, w.currency),
            waiting_for=waits(w, approvals, datetime.now(UTC)) if pending else [],
            approvals=approvals,
            tx_signature=w.signature,
        )
        if history is not None:
            shown.history = [
                WithdrawalStep(status=h.status, reason=h.reason, at=iso(h.created_at))
                for h in history
            ]
        return shown

    def with_admin_view(
        self, decisions: Sequence[WithdrawalDecision], chain_write: dict[str, Any] | None
    ) -> Self:
        self.decisions = [
            Decision(admin_uid=d.admin_uid, decision=d.decision, reason=d.reason,
                     at=iso(d.created_at))
            for d in decisions
        ]  # fmt: skip
        self.chain_write = None if chain_write is None else ChainWriteView(**chain_write)
        return self


class BreakerAttributes(Attributes):
    tripped: bool
    tripped_at: str | None
    tripped_by: str | None = Field(description="The withdrawal that crossed the limit")
    reset_at: str | None
    reset_by: str | None
    reset_reason: str | None
    released: list[str] | None = Field(None, description="Withdrawals a reset let go on")

    @classmethod
    def of(cls, row: WithdrawalBreaker, released: list[str] | None = None) -> Self:
        shown = cls.of_row(row)
        if released is not None:
            shown.released = released
        return shown


class WithdrawalRetryAttributes(Attributes):
    withdrawal_id: str
    status: str
    chain_write: RetriedWrite | None
    workflow_id: str | None
    workflow_restarted: bool
