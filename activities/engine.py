"""Activities of the transaction engine: short DB steps (run as local activities) and the
chain legs. Each activity has one commit point; business rejections are non-retryable."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from temporalio import activity

from activities.chain_leg import chain_leg
from activities.heartbeat import heartbeating
from db.models.engine import Transfer
from engine import locks, reconcile, recovery
from engine.recovery import Orphan
from engine.settlement import Settled, Settler, TransferNotFound

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class TransferRef:
    transfer_id: str


# Where a transfer stands after a step: the engine's own record of it (plain values, safe in
# workflow history).
TransferStep = Settled


@dataclass
class LockRef:
    lock_id: str


@dataclass
class LockOutcome:
    status: str


@dataclass
class ReconcileRequest:
    run_id: str


@dataclass
class ReconcileReport:
    run_id: str
    checked: int
    skipped: int
    drifts: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class OrphanQuery:
    stale_after_seconds: float = 30.0
    limit: int = 500


class EngineActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self.deps = deps
        self.settler = Settler(deps.sessions, deps.gateway)
        self.deposits = deps.deposits  # the worker's one scanner (the watcher's too)

    # -- transfers -------------------------------------------------------------------

    @activity.defn(name="engine.transfer_settle")
    @heartbeating
    async def transfer_settle(self, ref: TransferRef) -> TransferStep:
        """The whole chain leg of one transfer: claimed (pending -> pending_onchain) with the
        transfers that arrive together, sent in one transaction with them, finalized, receipt
        verified, booked (see engine.settlement). Idempotent: a retry resumes from the records.
        Heartbeats while it runs (TransferWorkflow's heartbeat timeout); a cancelled activity
        stops waiting, the shared write goes on."""
        with chain_leg(f"transfer {ref.transfer_id}", TransferNotFound):
            return await self.settler.settle(ref.transfer_id)

    @activity.defn(name="engine.transfer_status")
    async def transfer_status(self, ref: TransferRef) -> TransferStep:
        """The transfer's status as recorded (local activity; for the Status search attribute
        of a transfer that takes long)."""
        async with self.deps.sessions() as session:
            row = await session.get(Transfer, ref.transfer_id)
        return TransferStep(status=row.status if row else "missing")

    # -- fund locks --------------------------------------------------------------------

    @activity.defn(name="engine.lock_expire")
    async def lock_expire(self, ref: LockRef) -> LockOutcome:
        """The lock's timer fired: release it if still locked (local activity)."""
        async with self.deps.sessions() as session:
            decimals = self.deps.gateway.token_decimals()  # ChainUnavailable (retried) until read
            hold = await locks.expire(session, ref.lock_id, decimals)
            await session.commit()
        return LockOutcome(status="expired" if hold is not None else "already-resolved")

    # -- reconciliation ------------------------------------------------------------------

    @activity.defn(name="engine.reconcile")
    async def reconcile(self, request: ReconcileRequest) -> ReconcileReport:
        # Deposits count: every finalized outside transfer is credited before the comparison,
        # so only what no finalized transaction explains is drift (tokens/deposit_watch.py).
        await self.deposits.scan()
        summary = await reconcile.reconcile(self.deps.sessions, self.deps.gateway, request.run_id)
        # A deposit that finalized during the pass: credit it and look once more.
        if summary.drifts and (await self.deposits.scan()).credited:
            summary = await reconcile.reconcile(
                self.deps.sessions, self.deps.gateway, request.run_id
            )
        return ReconcileReport(summary.run_id, summary.checked, summary.skipped, summary.drifts)

    @activity.defn(name="engine.find_orphans")
    async def find_orphans(self, query: OrphanQuery) -> list[Orphan]:
        """Committed records whose workflow may never have started (see engine.recovery)."""
        async with self.deps.sessions() as session:
            return await recovery.find_orphans(
                session,
                stale_after=timedelta(seconds=query.stale_after_seconds),
                limit=query.limit,
            )
