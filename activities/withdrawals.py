"""Activities of withdrawals: the workflow's look at its record (a local activity: one short
transaction) and the chain leg (heartbeating, until finality). Business rejections are
non-retryable."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from temporalio import activity

from activities.chain_leg import chain_leg
from activities.heartbeat import heartbeating
from engine import withdrawals
from engine.withdrawal_sender import Sent, WithdrawalNotFound, WithdrawalSender

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class WithdrawalRef:
    withdrawal_id: str


@dataclass
class WithdrawalLook:
    """Where the withdrawal stands (plain values, safe in workflow history): its status, what
    it waits for, and in how many seconds something changes by itself (cooling-off, deadline)."""

    status: str
    ready: bool = False
    final: bool = False
    waits: list[str] = field(default_factory=list)
    wake_in_seconds: float | None = None


# The chain leg's outcome, as the engine records it.
WithdrawalStep = Sent


class WithdrawalActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self.deps = deps
        self.sender = WithdrawalSender(deps.sessions, deps.gateway)

    @activity.defn(name="withdrawals.look")
    async def look(self, ref: WithdrawalRef) -> WithdrawalLook:
        """Read the withdrawal and what it waits for; one still waiting at its deadline is
        cancelled here (its hold released). Marks the workflow seen (engine.recovery)."""
        decimals = self.deps.gateway.token_decimals()  # ChainUnavailable (retried) until read
        now = datetime.now(UTC)
        async with self.deps.sessions() as session:
            gate = await withdrawals.look(session, ref.withdrawal_id, now, decimals)
            await session.commit()
        wake = (gate.wake_at - now).total_seconds() if gate.wake_at is not None else None
        return WithdrawalLook(gate.status, gate.ready, gate.final, list(gate.waits), wake)

    @activity.defn(name="withdrawals.send")
    @heartbeating
    async def send(self, ref: WithdrawalRef) -> WithdrawalStep:
        """The chain leg (engine.withdrawal_sender): claimed, written exactly once, finalized,
        receipt verified, booked. Idempotent: a retry resumes from the records."""
        with chain_leg(f"withdrawal {ref.withdrawal_id}", WithdrawalNotFound):
            return await self.sender.send(ref.withdrawal_id)
