"""Activities of the transaction engine: short DB steps (run as local activities) and the
chain legs. Each activity has one commit point; business rejections are non-retryable."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from temporalio import activity

from activities.chain_leg import chain_leg
from activities.heartbeat import heartbeating
from chain.errors import ChainWriteConflict, ReceiptMismatch
from db.last import autocommit
from db.models.engine import Transfer
from engine import locks, reconcile, recovery
from engine.recovery import Orphan
from engine.settlement import Settled, Settler, TransferNotFound

if TYPE_CHECKING:
    from activities.deps import WorkerDeps

log = logging.getLogger(__name__)

# A slow transfer whose status could not be read (or was final) is looked at again after this.
_LOOK_AGAIN_SECONDS = 60.0
# The settle step's failures that are final (the workflow's non-retryable types).
_FINAL_ERRORS = (TransferNotFound, ChainWriteConflict, ReceiptMismatch)


def _retryable(exc: BaseException | None) -> bool:
    return exc is not None and not isinstance(exc, _FINAL_ERRORS)


@dataclass
class TransferRef:
    transfer_id: str
    # transfer_settle: when the transfer is not settled after this many seconds, answer with
    # its recorded status (``settling``) and leave the settlement going on (None: wait).
    report_after_seconds: float | None = None


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
        stops waiting, the shared write goes on. With ``report_after_seconds``, a transfer still
        settling by then is answered with its recorded status (``settling``): the workflow shows
        it to operators and calls again, which joins the settlement."""
        with chain_leg(f"transfer {ref.transfer_id}", TransferNotFound):
            return await self._settle_or_report(ref)

    async def _settle_or_report(self, ref: TransferRef) -> TransferStep:
        """Settle; with ``report_after_seconds``, once that long has passed since the step
        was scheduled (its first try: an outage's failing tries count), a transfer still
        settling, or failing for now, is answered with its recorded status instead."""
        settling = asyncio.ensure_future(self.settler.settle(ref.transfer_id))
        if ref.report_after_seconds is None:
            return await settling
        due = activity.info().scheduled_time + timedelta(seconds=ref.report_after_seconds)
        while True:
            left = (due - datetime.now(UTC)).total_seconds()
            done, _ = await asyncio.wait({settling}, timeout=max(left, 0.0))
            failing = done and _retryable(settling.exception())
            if done and not (failing and datetime.now(UTC) >= due):
                return settling.result()
            status = await self._recorded_status(ref.transfer_id)
            if status in ("pending", "pending_onchain"):
                settling.cancel()  # this try stops waiting; the settlement goes on
                return TransferStep(status=status, settling=True)
            if done:
                return settling.result()  # the try's failure: retried
            # Unreadable (the database away) or final already: keep waiting, look again later.
            due = datetime.now(UTC) + timedelta(seconds=_LOOK_AGAIN_SECONDS)

    async def _recorded_status(self, transfer_id: str) -> str | None:
        """The transfer's status as recorded; None when it cannot be read (for operators
        only: it never fails the step)."""
        try:
            async with autocommit(self.deps.sessions) as session:
                return await session.scalar(
                    select(Transfer.status).where(Transfer.id == transfer_id)
                )
        except Exception as exc:
            log.warning("status of slow transfer %s not read: %r", transfer_id, exc)
            return None

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
